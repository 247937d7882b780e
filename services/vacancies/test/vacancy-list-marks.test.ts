import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Vacancy } from "../src/domain/vacancy-catalogue.ts";
import {
  comparedPlans,
  inOrder,
  NOON_ON_TODAY,
  walkAll,
  type Envelope,
  type RunningVacancies,
} from "./support/harness.ts";

// Deep pages walk from page marks kept for their lifetime (source/mysql-vacancy-source.ts,
// VACANCY_PAGE_MARKS_CACHE_MS): rows are always read fresh, only where a page starts may lag a
// change before it by the marks' lifetime. Every page here is "deep" (earlyRows 0).
const TTL_MS = 60_000;
const SPACING = 10;
let world: Awaited<ReturnType<typeof comparedPlans>>;
let run: RunningVacancies;
/** The same data without marks: every page sorts, exact at once. */
let exact: RunningVacancies;
let clock = NOON_ON_TODAY;

beforeAll(async () => {
  world = await comparedPlans({
    now: () => clock,
    earlyRows: 0,
    marks: { spacing: SPACING, ttlMs: TTL_MS },
  });
  ({ run, exact } = world);
});
afterAll(() => world.close());

async function page(service: RunningVacancies, perPage: number, number: number): Promise<string[]> {
  const res = await service.get<Envelope<Vacancy[]>>(
    `/v1/vacancies?per_page=${perPage}&page=${number}`,
  );
  expect(res.status).toBe(200);
  return inOrder(res.body.data);
}

const setDeleted = (uuids: readonly string[], deleted: 0 | 1) =>
  world.writer.query("UPDATE tbl_vacature SET verwijderd = ? WHERE uuid IN (?)", [deleted, uuids]);

describe("GET /v1/vacancies deep pages with page marks", () => {
  it("keeps where a page starts for the marks' lifetime, reads the rows fresh, and moves the start once the marks are read again", async () => {
    const before = await page(run, 10, 3);
    expect(before).toEqual(await page(exact, 10, 3));
    const first = await page(run, 10, 1);
    const next = await page(exact, 10, 4);
    await setDeleted([first[0] as string], 1);
    try {
      // The sorted plan shifts at once; the marked page still starts where the marks say ...
      expect(await page(exact, 10, 3)).toEqual([...before.slice(1), next[0]]);
      expect(await page(run, 10, 3)).toEqual(before);
      // ... its rows are fresh: a row on it that is deleted now is gone now.
      await setDeleted([before[4] as string], 1);
      expect(await page(run, 10, 3)).not.toContain(before[4]);
      await setDeleted([before[4] as string], 0);
      // Past the lifetime the marks are read again in the background; then pages match the sorted
      // plan.
      clock += TTL_MS;
      await page(run, 10, 3);
      await expect.poll(async () => page(run, 10, 3)).toEqual(await page(exact, 10, 3));
    } finally {
      await setDeleted([first[0] as string], 0);
      clock += TTL_MS;
    }
    await expect.poll(async () => page(run, 10, 3)).toEqual(before);
  });

  it("reaches vacancies added after the last mark, and a page far past the end is empty", async () => {
    const all = inOrder((await walkAll(exact, "", 100)).items);
    const lastThree = all.slice(-3);
    await setDeleted(lastThree, 1);
    try {
      clock += TTL_MS;
      // Marks read without the last three (in the background after the lifetime: wait for them).
      // One walk is many requests: a generous deadline for a loaded machine.
      await expect
        .poll(async () => inOrder((await walkAll(run, "", 7)).items), { timeout: 30_000 })
        .toEqual(all.slice(0, -3));
      await setDeleted(lastThree, 0);
      expect(inOrder((await walkAll(run, "", 7)).items)).toEqual(all);
      expect(await page(run, 100, 9_999)).toEqual([]);
    } finally {
      await setDeleted(lastThree, 0);
    }
  });
});
