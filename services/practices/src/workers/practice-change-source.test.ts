import { describe, expect, it } from "vitest";
import type { ChangeRecord, PassContext } from "@svc/events";
import { withinPeriod } from "../source/to-practice.ts";
import type { Practice } from "../domain/practice.ts";
import type {
  PracticeChangeFeed,
  PracticeFeedEntry,
  PracticeModification,
} from "../domain/ports.ts";
import { periodRecheckOn, PracticeChangeSource } from "./practice-change-source.ts";

const TODAY = "2025-06-15";
const ctx: PassContext = { today: TODAY, nowMs: 0, signal: new AbortController().signal };

function entry(
  id: string,
  period: Practice["period"] = { start_date: null, stop_date: null },
  periodDecidesActive = false,
): PracticeFeedEntry {
  return { practice: { practice_id: id, period } as Practice, periodDecidesActive };
}

/** An in-memory feed: `modified` rows in (time, id) order, `practices` by id. */
function fakeFeed(
  modified: PracticeModification[],
  practices: PracticeFeedEntry[],
): PracticeChangeFeed & { asked: unknown[] } {
  const asked: unknown[] = [];
  const ordered = [...modified].sort((a, b) =>
    `${a.modifiedLocal}|${a.practiceId}`.localeCompare(`${b.modifiedLocal}|${b.practiceId}`),
  );
  const sorted = [...practices].sort((a, b) =>
    a.practice.practice_id.localeCompare(b.practice.practice_id),
  );
  return {
    asked,
    async modifications(since, after, limit) {
      asked.push(after);
      const later = (m: PracticeModification) =>
        !after ||
        m.modifiedLocal > after.modifiedLocal ||
        (m.modifiedLocal === after.modifiedLocal && m.practiceId > after.practiceId);
      return ordered.filter((m) => m.modifiedLocal >= since && later(m)).slice(0, limit);
    },
    async live(afterId, limit) {
      asked.push(afterId);
      return sorted
        .filter((e) => afterId === null || e.practice.practice_id > afterId)
        .slice(0, limit);
    },
    async byIds(ids) {
      asked.push([...ids]);
      return sorted.filter((e) => ids.includes(e.practice.practice_id));
    },
  };
}

async function collect(
  pages: AsyncIterable<ChangeRecord<Practice>[]>,
): Promise<ChangeRecord<Practice>[][]> {
  const out: ChangeRecord<Practice>[][] = [];
  for await (const page of pages) out.push(page);
  return out;
}

describe("periodRecheckOn (a secondary practice's next flip of active)", () => {
  it.each([
    [{ start_date: "2025-06-16", stop_date: "2999-12-31" }, "2025-06-16"],
    [{ start_date: "2025-06-15", stop_date: "2025-06-30" }, "2025-07-01"],
    [{ start_date: null, stop_date: "2025-06-15" }, "2025-06-16"],
    [{ start_date: "2024-01-01", stop_date: "2025-06-14" }, null],
    [{ start_date: null, stop_date: null }, null],
    [{ start_date: "2025-06-20", stop_date: "2025-06-10" }, "2025-06-20"],
    [{ start_date: null, stop_date: "2024-12-31" }, null],
    [{ start_date: "2020-01-01", stop_date: "2999-12-31" }, "3000-01-01"],
  ])("for %o is %s", (period, expected) => {
    expect(periodRecheckOn(period, TODAY)).toBe(expected);
  });

  it("names a date on which active really differs from the day before", () => {
    for (const period of [
      { start_date: "2025-06-16", stop_date: "2025-06-20" },
      { start_date: null, stop_date: "2025-06-15" },
      { start_date: "2025-06-01", stop_date: "2025-06-30" },
    ]) {
      const on = periodRecheckOn(period, TODAY)!;
      const before = new Date(Date.parse(`${on}T00:00:00Z`) - 86_400_000)
        .toISOString()
        .slice(0, 10);
      expect(
        withinPeriod(period.start_date, period.stop_date, on),
        JSON.stringify(period),
      ).not.toBe(withinPeriod(period.start_date, period.stop_date, before));
    }
  });
});

describe("PracticeChangeSource", () => {
  it("reads each modified practice once per page, with its latest modification time, and pages by (time, id)", async () => {
    const feed = fakeFeed(
      [
        { practiceId: "B", modifiedLocal: "2025-06-15 10:00:00" },
        { practiceId: "A", modifiedLocal: "2025-06-15 10:00:00" },
        { practiceId: "A", modifiedLocal: "2025-06-15 10:00:05" },
        { practiceId: "C", modifiedLocal: "2025-06-15 10:00:07" },
        { practiceId: "OLD", modifiedLocal: "2025-06-15 08:00:00" },
      ],
      [entry("A"), entry("B"), entry("C"), entry("OLD")],
    );
    const pages = await collect(
      new PracticeChangeSource(feed, { pageSize: 3 }).changedSince(
        { modifiedAfterLocal: "2025-06-15 09:00:00" },
        ctx,
      ),
    );
    expect(pages.map((p) => p.map((r) => [r.id, r.modifiedLocal]))).toEqual([
      [
        ["A", "2025-06-15 10:00:05"],
        ["B", "2025-06-15 10:00:00"],
      ],
      [["C", "2025-06-15 10:00:07"]],
    ]);
    expect(feed.asked).toEqual([
      null,
      ["A", "B"],
      { practiceId: "A", modifiedLocal: "2025-06-15 10:00:05" },
      ["C"],
    ]);
  });

  it("leaves a modified practice that can no longer be read to the sweep", async () => {
    const feed = fakeFeed([{ practiceId: "GONE", modifiedLocal: "2025-06-15 10:00:00" }], []);
    expect(
      await collect(
        new PracticeChangeSource(feed).changedSince(
          { modifiedAfterLocal: "2025-06-15 09:00:00" },
          ctx,
        ),
      ),
    ).toEqual([]);
  });

  it("sweeps every practice in id pages; only a secondary practice gets a recheck date", async () => {
    const period = { start_date: "2025-07-01", stop_date: null };
    const feed = fakeFeed(
      [],
      [entry("A", period, false), entry("B", period, true), entry("C"), entry("D")],
    );
    const pages = await collect(new PracticeChangeSource(feed, { pageSize: 2 }).sweep(ctx));
    expect(pages.map((p) => p.map((r) => [r.id, r.recheckOn]))).toEqual([
      [
        ["A", null],
        ["B", "2025-07-01"],
      ],
      [
        ["C", null],
        ["D", null],
      ],
    ]);
    expect(feed.asked).toEqual([null, "B", "D"]);
  });

  it("declares the practice event types of the catalogue", () => {
    expect(new PracticeChangeSource(fakeFeed([], []))).toMatchObject({
      name: "practices",
      entityType: "practice",
      events: {
        created: "practice.created",
        updated: "practice.updated",
        deleted: "practice.deleted",
      },
    });
  });
});
