import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection, type Connection } from "mysql2/promise";
import type { TempDatabase } from "@svc/testing";
import { loadConfig } from "../src/config.ts";
import type { Vacancy } from "../src/domain/vacancy-catalogue.ts";
import {
  NOON_ON_TODAY,
  seededLegacyDatabase,
  startVacancies,
  type Envelope,
  type RunningVacancies,
} from "./support/harness.ts";

// The list total is reused for VACANCY_TOTALS_CACHE_MS on full pages (README "List totals"), is
// exact on a page that is not full, and is recounted in the background once the lifetime is over.
const TTL_MS = 60_000;
let database: TempDatabase;
let run: RunningVacancies;
let writer: Connection;
let clock = NOON_ON_TODAY;

beforeAll(async () => {
  database = await seededLegacyDatabase(0.1);
  writer = await createConnection({ uri: database.url });
  run = await startVacancies({
    legacyUrl: database.url,
    now: () => clock,
    config: loadConfig({ ENVIRONMENT: "sandbox", VACANCY_TOTALS_CACHE_MS: String(TTL_MS) }),
  });
});
afterAll(async () => {
  await run.close();
  await writer.end();
  await database.drop();
});

async function page(perPage: number, number: number) {
  const res = await run.get<Envelope<Vacancy[]>>(
    `/v1/vacancies?per_page=${perPage}&page=${number}`,
  );
  expect(res.status).toBe(200);
  return {
    uuids: res.body.data.map((v) => v.uuid),
    total: res.body.meta.pagination?.total as number,
  };
}

const softDelete = (uuid: string) =>
  writer.query("UPDATE tbl_vacature SET verwijderd = 1 WHERE uuid = ?", [uuid]);

describe("GET /v1/vacancies totals with VACANCY_TOTALS_CACHE_MS", () => {
  it("reuses a full page's total within the lifetime, recounts it in the background after it, and is exact on a partial page at once", async () => {
    const before = await page(10, 1);
    const lastNumber = Math.ceil(before.total / 10);
    const last = await page(10, lastNumber);
    expect(last.uuids.length).toBeLessThan(10);
    expect(last.total).toBe(before.total);

    // A vacancy on the last page disappears: full pages keep the counted total for the lifetime ...
    await softDelete(last.uuids[0] as string);
    expect((await page(10, 1)).total).toBe(before.total);
    clock += TTL_MS - 1;
    expect((await page(10, 2)).total).toBe(before.total);
    // ... while the partial last page proves the new total without waiting.
    expect((await page(10, lastNumber)).total).toBe(before.total - 1);

    // Once the lifetime is over, the next full page still answers with the counted total while the
    // count runs again beside it (no request waits for a recount); later pages get the new count.
    clock += 1;
    expect((await page(10, 1)).total).toBe(before.total);
    await expect.poll(async () => (await page(10, 1)).total).toBe(before.total - 1);
  });

  it("keeps totals of different filters apart", async () => {
    const all = await page(5, 1);
    const nl = await run.get<Envelope<Vacancy[]>>("/v1/vacancies?per_page=5&language=nl");
    const fr = await run.get<Envelope<Vacancy[]>>("/v1/vacancies?per_page=5&language=fr");
    const nlTotal = nl.body.meta.pagination?.total as number;
    const frTotal = fr.body.meta.pagination?.total as number;
    expect(nlTotal).toBeGreaterThan(0);
    expect(frTotal).toBeGreaterThan(0);
    expect(nlTotal + frTotal).toBeLessThanOrEqual(all.total);
    expect(nlTotal).not.toBe(all.total);
  });
});
