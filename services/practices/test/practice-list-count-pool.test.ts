import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LegacyDb } from "@svc/db";
import { slowStatements, type TempDatabase } from "@svc/testing";
import { loadConfig } from "../src/config.ts";
import type { Practice } from "../src/domain/practice.ts";
import { countingDb } from "../src/source/mysql-practice-source.ts";
import { seedLegacy, startPractices, type PracticesApp } from "./support/harness.ts";

// Counts and page marks grow with the union, pages do not (docs/decisions/growth.md): they run on
// a pool of their own with its own timeout, so a list too large to count within the page pool's
// query timeout still answers. Here every COUNT or page-marks statement sent to the page pool
// first waits longer than that pool's timeout, as a large list's count does.
const PAGE_TIMEOUT_MS = 2_000;
const COUNT_OR_MARKS = /COUNT\(\*\)|ROW_NUMBER\(\)/;
const slowCounts = (db: LegacyDb): LegacyDb =>
  slowStatements(db, COUNT_OR_MARKS, PAGE_TIMEOUT_MS * 2);

let database: TempDatabase;
let counting: LegacyDb;
let run: PracticesApp;

beforeAll(async () => {
  database = await seedLegacy(1);
  counting = countingDb(loadConfig({ ENVIRONMENT: "sandbox", LEGACY_DATABASE_URL: database.url }));
  run = await startPractices({
    legacyUrl: database.url,
    legacyTimeoutMs: PAGE_TIMEOUT_MS,
    pagePool: slowCounts,
    countDb: counting,
    marks: { ttlMs: 60_000, spacing: 5 },
  });
});
afterAll(async () => {
  await run?.close();
  await counting?.close();
  await database?.drop();
});

describe("GET /v1/practices counts on their own pool", () => {
  it("answers a full page with its exact total and a marked deep page, the page pool never counting", async () => {
    // The total by walking every page to the first short one (page reads only).
    let walked = 0;
    for (let number = 1; ; number++) {
      const res = await run.get<Practice[]>(`/v1/practices?per_page=100&page=${number}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      walked += res.body.data.length;
      if (res.body.data.length < 100) break;
    }
    const first = await run.get<Practice[]>("/v1/practices?per_page=10");
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toHaveLength(10);
    expect(first.body.meta.pagination?.total).toBe(walked);
    // Past the first mark (spacing 5): cut from a page mark, read on the count pool.
    const deep = await run.get<Practice[]>("/v1/practices?per_page=10&page=3&active=true");
    expect(deep.status, JSON.stringify(deep.body)).toBe(200);
    expect(deep.body.data).toHaveLength(10);
  });

  it("takes its count pool's size and timeout from the settings", () => {
    const config = loadConfig({ ENVIRONMENT: "sandbox" });
    expect(config.PRACTICE_COUNT_POOL_MAX).toBe(2);
    expect(config.PRACTICE_COUNT_TIMEOUT_MS).toBeGreaterThan(config.LEGACY_QUERY_TIMEOUT_MS);
    expect(() => loadConfig({ ENVIRONMENT: "sandbox", PRACTICE_COUNT_POOL_MAX: "0" })).toThrow();
  });
});
