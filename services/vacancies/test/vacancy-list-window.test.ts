import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageStatement } from "../src/source/mysql-vacancy-source.ts";
import type { Vacancy } from "../src/domain/vacancy-catalogue.ts";
import {
  comparedPlans,
  inOrder,
  TODAY,
  walkAll,
  type RunningVacancies,
} from "./support/harness.ts";

// An updated_since list without other filters reads early pages from a prefix of the modification
// window and checks liveness on those rows only (source/mysql-vacancy-source.ts,
// WINDOW_PREFIX_ROWS); a short page is read again exactly. Compared with the same service on the
// exact plans.
const SINCE = "updated_since=2000-01-01";
let world: Awaited<ReturnType<typeof comparedPlans>>;
let run: RunningVacancies;
let exact: RunningVacancies;

beforeAll(async () => {
  world = await comparedPlans({});
  ({ run, exact } = world);
});
afterAll(() => world.close());

describe("GET /v1/vacancies?updated_since pages from a window prefix", () => {
  it("takes the prefix plan for early pages only", () => {
    const filter = { updatedSinceLocal: "2000-01-01 00:00:00" };
    expect(pageStatement(filter, { today: TODAY }, { offset: 0, limit: 100 }).windowPrefix).toBe(
      true,
    );
    expect(pageStatement(filter, { today: TODAY }, { offset: 900, limit: 100 }).windowPrefix).toBe(
      true,
    );
    expect(
      pageStatement(filter, { today: TODAY }, { offset: 1_000, limit: 100 }).windowPrefix,
    ).toBe(false);
    expect(
      pageStatement({ ...filter, language: "nl" }, { today: TODAY }, { offset: 0, limit: 100 })
        .windowPrefix,
    ).toBe(false);
  });

  it("gives every page exactly, also when more rows of a prefix are deleted than its margin", async () => {
    const before = inOrder((await walkAll(exact, SINCE, 100)).items);
    expect(before.length).toBeGreaterThan(150);
    expect(inOrder((await walkAll(run, SINCE, 100)).items)).toEqual(before);
    expect(inOrder((await walkAll(run, SINCE, 30)).items)).toEqual(before);
    // 70 of page 1's 100 rows go: the prefix of 141 ids holds fewer than 100 live ones.
    const gone = before.slice(0, 100).filter((_, i) => i % 10 < 7);
    await world.writer.query("UPDATE tbl_vacature SET verwijderd = 1 WHERE uuid IN (?)", [gone]);
    try {
      const after = inOrder((await walkAll(exact, SINCE, 100)).items);
      expect(after).toEqual(before.filter((uuid) => !gone.includes(uuid)));
      const page1 = await run.get<{ data: Vacancy[] }>(`/v1/vacancies?${SINCE}&per_page=100`);
      expect(page1.body.data).toHaveLength(100);
      expect(inOrder((await walkAll(run, SINCE, 100)).items)).toEqual(after);
      expect(inOrder((await walkAll(run, SINCE, 30)).items)).toEqual(after);
    } finally {
      await world.writer.query("UPDATE tbl_vacature SET verwijderd = 0 WHERE uuid IN (?)", [gone]);
    }
  });
});
