import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLegacyDb, type LegacyDb } from "@svc/db";
import { slowStatements, type TempDatabase } from "@svc/testing";
import { loadConfig } from "../src/config.ts";
import { countingDb } from "../src/source/mysql-vacancy-source.ts";
import type { Vacancy } from "../src/domain/vacancy-catalogue.ts";
import {
  seededLegacyDatabase,
  startVacancies,
  type Envelope,
  type RunningVacancies,
} from "./support/harness.ts";

// Counts and page marks grow with the list, pages do not (docs/decisions/growth.md): they run on
// a pool of their own with its own timeout, so a list too large to count within the page pool's
// query timeout still answers. Here every COUNT or page-marks statement sent to the page pool
// first waits longer than that pool's timeout, as a large list's count does.
const PAGE_TIMEOUT_MS = 2_000;
const COUNT_OR_MARKS = /COUNT\(\*\)|ROW_NUMBER\(\)/;
const slowCounts = (db: LegacyDb): LegacyDb =>
  slowStatements(db, COUNT_OR_MARKS, PAGE_TIMEOUT_MS * 2);

let database: TempDatabase;
let counting: LegacyDb;
let run: RunningVacancies;

beforeAll(async () => {
  database = await seededLegacyDatabase(0.1);
  counting = countingDb(loadConfig({ ENVIRONMENT: "sandbox", LEGACY_DATABASE_URL: database.url }));
  run = await startVacancies({
    legacyUrl: database.url,
    timeoutMs: PAGE_TIMEOUT_MS,
    pagePool: slowCounts,
    countDb: counting,
    earlyRows: 0,
    marks: { ttlMs: 60_000, spacing: 5 },
  });
});
afterAll(async () => {
  await run.close();
  await counting.close();
  await database.drop();
});

describe("GET /v1/vacancies counts on their own pool", () => {
  it("answers a full page with its exact total and a marked deep page, the page pool never counting", async () => {
    const exact = createLegacyDb({ url: database.url });
    const [row] = await exact.query<{ n: number }>(
      "SELECT COUNT(*) AS n FROM tbl_vacature WHERE verwijderd = 0",
    );
    await exact.close();
    const first = await run.get<Envelope<Vacancy[]>>("/v1/vacancies?per_page=10");
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toHaveLength(10);
    expect(first.body.meta.pagination?.total).toBe(Number(row?.n));
    // Every page is past earlyRows = 0: it walks from a page mark, read on the count pool.
    const deep = await run.get<Envelope<Vacancy[]>>("/v1/vacancies?per_page=10&page=3");
    expect(deep.status, JSON.stringify(deep.body)).toBe(200);
    expect(deep.body.data).toHaveLength(10);
  });

  it("takes its count pool's size and timeout from the settings", () => {
    const config = loadConfig({ ENVIRONMENT: "sandbox" });
    expect(config.VACANCY_COUNT_POOL_MAX).toBe(2);
    expect(config.VACANCY_COUNT_TIMEOUT_MS).toBeGreaterThan(config.LEGACY_QUERY_TIMEOUT_MS);
    expect(() => loadConfig({ ENVIRONMENT: "sandbox", VACANCY_COUNT_POOL_MAX: "0" })).toThrow();
  });
});
