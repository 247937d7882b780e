import { describe, expect, it } from "vitest";
import type { ChangeRecord, PassContext } from "@svc/events";
import type { Vacancy } from "../domain/vacancy-catalogue.ts";
import type { AsOf, FeedPosition, VacancyChangeFeed, VacancyFeedEntry } from "../domain/ports.ts";
import { publicationRecheckOn, VacancyChangeSource } from "./vacancy-change-source.ts";

const TODAY = "2025-06-15";
const ctx: PassContext = { today: TODAY, nowMs: 0, signal: new AbortController().signal };

function vacancy(overrides: Partial<Vacancy> = {}): Vacancy {
  return { uuid: "u", visible: true, published: true, display_date: null, ...overrides } as Vacancy;
}

/** An in-memory feed over `entries` that records the positions it was asked for. */
function fakeFeed(
  entries: VacancyFeedEntry[],
): VacancyChangeFeed & { asked: unknown[]; asOf: AsOf[] } {
  const byTime = [...entries].sort((a, b) =>
    `${a.modifiedLocal}|${a.rowKey}`.localeCompare(`${b.modifiedLocal}|${b.rowKey}`),
  );
  const asked: unknown[] = [];
  const asOf: AsOf[] = [];
  const modified = (since: string, after: FeedPosition | null, limit: number) =>
    byTime
      .filter(
        (e) =>
          e.modifiedLocal !== null &&
          e.modifiedLocal >= since &&
          (!after ||
            e.modifiedLocal > after.modifiedLocal ||
            (e.modifiedLocal === after.modifiedLocal && e.rowKey > after.rowKey)),
      )
      .slice(0, limit);
  const live = (afterRowKey: number | null, limit: number) =>
    entries
      .filter((e) => e.vacancy !== null && (afterRowKey === null || e.rowKey > afterRowKey))
      .sort((x, y) => x.rowKey - y.rowKey)
      .slice(0, limit);
  return {
    asked,
    asOf,
    async modifiedSince(since: string, after: FeedPosition | null, limit: number, a: AsOf) {
      asked.push(after);
      asOf.push(a);
      return modified(since, after, limit);
    },
    async stampsSince(since: string, after: FeedPosition | null, limit: number) {
      asked.push(after);
      return modified(since, after, limit).map((e) => ({
        uuid: e.uuid,
        rowKey: e.rowKey,
        modifiedLocal: e.modifiedLocal as string,
      }));
    },
    async live(afterRowKey: number | null, limit: number, a: AsOf) {
      asked.push(afterRowKey);
      asOf.push(a);
      return live(afterRowKey, limit);
    },
    async byUuids(uuids: readonly string[], a: AsOf) {
      asOf.push(a);
      return entries.filter((e) => e.vacancy !== null && uuids.includes(e.uuid));
    },
    mappingVersion: "toVacancy 7, Europe/Brussels",
    async liveDigests(afterRowKey: number | null, limit: number) {
      asked.push(afterRowKey);
      return live(afterRowKey, limit).map((e) => ({
        uuid: e.uuid,
        rowKey: e.rowKey,
        digest: e.digest,
      }));
    },
  };
}

async function collect(
  pages: AsyncIterable<ChangeRecord<Vacancy>[]>,
): Promise<ChangeRecord<Vacancy>[][]> {
  const out: ChangeRecord<Vacancy>[][] = [];
  for await (const page of pages) out.push(page);
  return out;
}

const entry = (
  rowKey: number,
  modifiedLocal: string | null,
  v: Vacancy | null = vacancy({ uuid: `v${rowKey}` }),
): VacancyFeedEntry => ({
  uuid: `v${rowKey}`,
  rowKey,
  modifiedLocal,
  vacancy: v,
  digest: Buffer.from(`digest of v${rowKey}`),
});

describe("publicationRecheckOn", () => {
  it.each([
    [{ visible: true, display_date: "2025-06-16" }, "2025-06-16"],
    [{ visible: true, display_date: TODAY }, null],
    [{ visible: true, display_date: "2025-06-14" }, null],
    [{ visible: true, display_date: null }, null],
    [{ visible: false, display_date: "2025-06-16" }, null],
  ])(
    "is the display date only while a visible vacancy waits for it (%o → %s)",
    (fields, expected) => {
      expect(publicationRecheckOn(vacancy(fields), TODAY)).toBe(expected);
    },
  );
});

describe("VacancyChangeSource", () => {
  it("pages changedSince by (modification time, row key) without losing ties across a page boundary", async () => {
    const feed = fakeFeed([
      entry(5, "2025-06-15 10:00:00"),
      entry(2, "2025-06-15 10:00:00"),
      entry(9, "2025-06-15 10:00:00"),
      entry(1, "2025-06-15 09:00:00"),
      entry(3, null),
    ]);
    const pages = await collect(
      new VacancyChangeSource(feed, { pageSize: 2 }).changedSince(
        { modifiedAfterLocal: "2025-06-15 09:30:00" },
        ctx,
      ),
    );
    expect(pages.map((p) => p.map((r) => r.id))).toEqual([["v2", "v5"], ["v9"]]);
    expect(feed.asked).toEqual([null, { modifiedLocal: "2025-06-15 10:00:00", rowKey: 5 }]);
    expect(feed.asOf.every((a) => a.today === TODAY)).toBe(true);
  });

  it("pages stampsSince like changedSince, soft-deleted included, with keys and times only", async () => {
    const feed = fakeFeed([
      entry(5, "2025-06-15 10:00:00"),
      entry(2, "2025-06-15 10:00:00", null),
      entry(9, "2025-06-15 10:00:00"),
      entry(1, "2025-06-15 09:00:00"),
    ]);
    const source = new VacancyChangeSource(feed, { pageSize: 2 });
    const pages = [];
    for await (const page of source.stampsSince({ modifiedAfterLocal: "2025-06-15 09:30:00" }, ctx))
      pages.push(page);
    expect(pages).toEqual([
      [
        { id: "v2", modifiedLocal: "2025-06-15 10:00:00" },
        { id: "v5", modifiedLocal: "2025-06-15 10:00:00" },
      ],
      [{ id: "v9", modifiedLocal: "2025-06-15 10:00:00" }],
    ]);
    expect(feed.asked).toEqual([null, { modifiedLocal: "2025-06-15 10:00:00", rowKey: 5 }]);
  });

  it("reports a soft-deleted vacancy with a null canonical form and its modification time", async () => {
    const feed = fakeFeed([entry(4, "2025-06-15 10:00:00", null)]);
    const [page] = await collect(
      new VacancyChangeSource(feed).changedSince(
        { modifiedAfterLocal: "2025-06-15 00:00:00" },
        ctx,
      ),
    );
    expect(page).toEqual([
      {
        id: "v4",
        canonical: null,
        recheckOn: null,
        modifiedLocal: "2025-06-15 10:00:00",
        digest: Buffer.from("digest of v4"),
      },
    ]);
  });

  it("offers the feed's digests of every live vacancy in row-key pages, under the feed's mapping version", async () => {
    const feed = fakeFeed([entry(3, null), entry(1, null), entry(2, null, null), entry(5, null)]);
    const source = new VacancyChangeSource(feed, { digestPageSize: 2 });
    expect(source.digests.version).toBe("toVacancy 7, Europe/Brussels");
    const pages: Array<Array<{ id: string; digest: string }>> = [];
    for await (const page of source.digests.sweep(ctx))
      pages.push(page.map((d) => ({ id: d.id, digest: d.digest.toString() })));
    expect(pages).toEqual([
      [
        { id: "v1", digest: "digest of v1" },
        { id: "v3", digest: "digest of v3" },
      ],
      [{ id: "v5", digest: "digest of v5" }],
    ]);
    expect(feed.asked).toEqual([null, 3]);
  });

  it("sweeps every live vacancy once, in row-key pages, with the recheck date of a scheduled one", async () => {
    const scheduled = vacancy({ uuid: "v7", display_date: "2025-07-01", published: false });
    const feed = fakeFeed([
      entry(1, null),
      entry(7, "2025-06-01 08:00:00", scheduled),
      entry(3, null, null),
      entry(4, null),
      entry(8, null),
    ]);
    const pages = await collect(new VacancyChangeSource(feed, { pageSize: 2 }).sweep(ctx));
    expect(pages.map((p) => p.map((r) => r.id))).toEqual([
      ["v1", "v4"],
      ["v7", "v8"],
    ]);
    expect(pages.flat().find((r) => r.id === "v7")).toMatchObject({
      canonical: scheduled,
      recheckOn: "2025-07-01",
    });
    expect(feed.asked).toEqual([null, 4, 8]);
  });

  it("returns only the live vacancies among the ids asked for", async () => {
    const feed = fakeFeed([entry(1, null), entry(2, null, null)]);
    const records = await new VacancyChangeSource(feed).byIds(["v1", "v2", "v3"], ctx);
    expect(records.map((r) => r.id)).toEqual(["v1"]);
  });

  it("declares the vacancy event types of the catalogue", () => {
    const source = new VacancyChangeSource(fakeFeed([]));
    expect(source).toMatchObject({
      name: "vacancies",
      entityType: "vacancy",
      events: {
        created: "vacancy.created",
        updated: "vacancy.updated",
        deleted: "vacancy.deleted",
      },
    });
  });
});
