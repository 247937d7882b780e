/**
 * GET /v1/practices with page marks (source/mysql-practice-source.ts,
 * PRACTICE_PAGE_MARKS_CACHE_MS): a page from the first mark on is cut from the mark at or before
 * its offset. The practices are read fresh; only where a page starts may lag a change before it by
 * the marks' lifetime. Checked against the same data set without marks (every page cut from the
 * start of the union: exact).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection, type Connection, type RowDataPacket } from "mysql2/promise";
import type { TempDatabase } from "@svc/testing";
import type { Practice } from "../src/domain/practice.ts";
import { NOW, seedLegacy, startPractices, type PracticesApp } from "./support/harness.ts";

const TTL_MS = 60_000;
const SPACING = 10;
let legacy: TempDatabase;
let writer: Connection;
let marked: PracticesApp;
let exact: PracticesApp;
let clock = NOW;

beforeAll(async () => {
  legacy = await seedLegacy(1);
  writer = await createConnection({ uri: legacy.url });
  marked = await startPractices({
    legacyUrl: legacy.url,
    now: () => clock,
    marks: { spacing: SPACING, ttlMs: TTL_MS },
  });
  exact = await startPractices({ legacyUrl: legacy.url, now: () => clock });
});
afterAll(async () => {
  await marked?.close();
  await exact?.close();
  await writer?.end();
  await legacy?.drop();
});

async function page(
  svc: PracticesApp,
  perPage: number,
  number: number,
  query = "",
): Promise<{ items: Practice[]; total: number | undefined }> {
  const res = await svc.get<Practice[]>(
    `/v1/practices?per_page=${perPage}&page=${number}${query ? `&${query}` : ""}`,
  );
  expect(res.status).toBe(200);
  return { items: res.body.data, total: res.body.meta.pagination?.total };
}

async function walk(svc: PracticesApp, perPage: number, query: string): Promise<string[]> {
  const ids: string[] = [];
  for (let number = 1; ; number++) {
    const { items } = await page(svc, perPage, number, query);
    ids.push(...items.map((p) => p.practice_id));
    if (items.length < perPage) return ids;
  }
}

const ids = (items: Practice[]) => items.map((p) => p.practice_id);

describe("GET /v1/practices with page marks", () => {
  it.each(["", "active=true", "active=false", "language=fr&visible=true", "province=Antwerpen"])(
    "walks every practice of %j exactly once, in the exact order, whatever the page size",
    async (query) => {
      const expected = await walk(exact, 100, query);
      expect(expected.length).toBeGreaterThan(SPACING * 2);
      for (const perPage of [SPACING, 7, 25])
        expect(await walk(marked, perPage, query), `per_page=${perPage}`).toEqual(expected);
    },
  );

  it("answers a page past the end, and a page that starts past the last mark, as the exact plan does", async () => {
    const total = (await page(exact, 1, 1)).total ?? 0;
    for (const [perPage, number] of [
      [100, 999],
      [7, Math.ceil(total / 7)],
      [3, Math.ceil(total / 3)],
    ] as const) {
      expect(ids((await page(marked, perPage, number)).items), `${perPage}/${number}`).toEqual(
        ids((await page(exact, perPage, number)).items),
      );
    }
  });

  it("keeps where a page starts for the marks' lifetime, reads the practices fresh, and moves the start once the marks are read again", async () => {
    const before = (await page(marked, SPACING, 3)).items;
    expect(ids(before)).toEqual(ids((await page(exact, SPACING, 3)).items));
    const last = ids((await page(exact, SPACING, 2)).items).at(-1);
    // A CRM-only practice whose id sorts before every other one; a CRM name changed on the page.
    const renamed = before.find((p) => !p.warnings.includes("source_record_missing"));
    expect(renamed).toBeDefined();
    const [rows] = await writer.query<RowDataPacket[]>(
      "SELECT naam FROM crm_bedrijf WHERE crm_id = ?",
      [renamed!.practice_id],
    );
    const original = (rows[0] as { naam: string | null }).naam;
    await writer.query(
      "INSERT INTO crm_bedrijf (crm_id, naam, gewijzigd_op) VALUES ('!MARK-FIRST', 'Marks first', '2025-06-15 09:00:00')",
    );
    await writer.query("UPDATE crm_bedrijf SET naam = 'Renamed while marked' WHERE crm_id = ?", [
      renamed!.practice_id,
    ]);
    try {
      // The exact plan shifts at once; the marked page still starts where the marks say ...
      expect(ids((await page(exact, SPACING, 3)).items)).toEqual([
        last,
        ...ids(before).slice(0, -1),
      ]);
      const now = (await page(marked, SPACING, 3)).items;
      expect(ids(now)).toEqual(ids(before));
      // ... and its practices are read now.
      expect(now.find((p) => p.practice_id === renamed!.practice_id)?.name).toBe(
        "Renamed while marked",
      );
      // Past the lifetime the marks are read again in the background; then pages match the exact
      // plan.
      clock += TTL_MS;
      await page(marked, SPACING, 3);
      const fresh = ids((await page(exact, SPACING, 3)).items);
      await expect.poll(async () => ids((await page(marked, SPACING, 3)).items)).toEqual(fresh);
    } finally {
      await writer.query("DELETE FROM crm_bedrijf WHERE crm_id = '!MARK-FIRST'");
      await writer.query("UPDATE crm_bedrijf SET naam = ? WHERE crm_id = ?", [
        original,
        renamed!.practice_id,
      ]);
      clock += TTL_MS;
    }
    await expect.poll(async () => ids((await page(marked, SPACING, 3)).items)).toEqual(ids(before));
  });
});
