/**
 * GET /v1/practices over a small bulk data set (scale 1: ~450 practices from both sources):
 * completeness, order and totals across the union, and every filter pushed into SQL, checked
 * against the unfiltered list (the mapper's rules) and against the database itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection, type Connection, type RowDataPacket } from "mysql2/promise";
import { fixtures } from "@svc/sandbox";
import type { TempDatabase } from "@svc/testing";
import type { Practice } from "../src/domain/practice.ts";
import { seedLegacy, startPractices, type PracticesApp } from "./support/harness.ts";

const P = fixtures.practices;
let legacy: TempDatabase;
let mysql: Connection;
let svc: PracticesApp;
let all: Practice[];

/** Every page of a query, in order, checking each page's pagination block on the way. */
async function walk(query: string, perPage = 100): Promise<{ items: Practice[]; total: number }> {
  const items: Practice[] = [];
  let total = -1;
  for (let page = 1; ; page++) {
    const res = await svc.get<Practice[]>(
      `/v1/practices?per_page=${perPage}&page=${page}${query ? `&${query}` : ""}`,
    );
    expect(res.status, query).toBe(200);
    const p = res.body.meta.pagination;
    if (total === -1) total = p?.total ?? -1;
    expect(p).toEqual({ page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) });
    items.push(...res.body.data);
    if (res.body.data.length < perPage) return { items, total };
  }
}

async function sql(text: string): Promise<string[]> {
  const [rows] = await mysql.query<RowDataPacket[]>(text);
  return rows.map((r) => String(r.id));
}

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

// Practices with several primary rows, planted in this test's own copy of the data set, so the
// choice of the representative row is visible in the output (fixture rows differ only in time).
// REP-AV: an active+visible row beats a newer inactive one. REP-LATEST: with no active+visible
// row, the latest row wins. REP-ID: with equal times, the highest row id wins.
const REP_ROWS = `INSERT INTO tbl_praktijk (praktijk_id, crm_ref, naam, actief, zichtbaar, taal, gewijzigd_op) VALUES
  (9001, 'REP-AV', 'Rep AV winner', 1, 1, 'fr', '2020-01-01 00:00:00'),
  (9002, 'REP-AV', 'Rep AV newer', 0, 1, 'nl', '2024-01-01 00:00:00'),
  (9003, 'REP-LATEST', 'Rep older', 0, 1, 'nl', '2020-01-01 00:00:00'),
  (9004, 'REP-LATEST', 'Rep latest', 0, 0, 'fr', '2024-01-01 00:00:00'),
  (9005, 'REP-ID', 'Rep lower id', 0, 1, 'nl', '2024-01-01 00:00:00'),
  (9006, 'REP-ID', 'Rep higher id', 1, 0, 'fr', '2024-01-01 00:00:00')`;

beforeAll(async () => {
  legacy = await seedLegacy(1);
  mysql = await createConnection({ uri: legacy.url });
  await mysql.query(REP_ROWS);
  svc = await startPractices({ legacyUrl: legacy.url });
  all = (await walk("")).items;
});
afterAll(async () => {
  await svc?.close();
  await mysql?.end();
  await legacy?.drop();
});

describe("the whole list", () => {
  it("holds every practice of both sources exactly once, in binary practice_id order", async () => {
    const expected = await sql(
      "SELECT crm_ref AS id FROM tbl_praktijk UNION SELECT crm_id FROM crm_bedrijf",
    );
    const ids = all.map((p) => p.practice_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...expected].sort());
    expect(ids).toEqual([...ids].sort(byteOrder));
    expect(ids.length).toBeGreaterThan(400);
  });

  it("reports the union's total on every page and the same order with any page size", async () => {
    const small = await walk("", 37);
    expect(small.total).toBe(all.length);
    expect(small.items.map((p) => p.practice_id)).toEqual(all.map((p) => p.practice_id));
  });

  it("answers an empty page past the end with the true total", async () => {
    const res = await svc.get<Practice[]>("/v1/practices?per_page=100&page=99");
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.pagination).toEqual({
      page: 99,
      per_page: 100,
      total: all.length,
      total_pages: Math.ceil(all.length / 100),
    });
  });
});

describe("filters", () => {
  const cases: Array<[string, (p: Practice) => boolean]> = [
    ["active=true", (p) => p.active],
    ["active=false", (p) => !p.active],
    ["visible=true", (p) => p.visible],
    ["visible=false", (p) => !p.visible],
    ["language=nl", (p) => p.language === "nl"],
    ["language=fr", (p) => p.language === "fr"],
    ["province=Antwerpen", (p) => p.address.province === "Antwerpen"],
    [`province=${encodeURIComponent("Liège")}`, (p) => p.address.province === "Liège"],
    [
      `search=${encodeURIComponent(fixtures.values.sharedPracticeName)}`,
      (p) => p.name === fixtures.values.sharedPracticeName,
    ],
    ["active=true&language=fr&visible=true", (p) => p.active && p.language === "fr" && p.visible],
    ["active=false&province=Antwerpen", (p) => !p.active && p.address.province === "Antwerpen"],
  ];

  it.each(cases)(
    "%s selects exactly the practices whose fields match, with the matching total",
    async (query, matches) => {
      const expected = all.filter(matches).map((p) => p.practice_id);
      const { items, total } = await walk(query, 40);
      expect(items.map((p) => p.practice_id)).toEqual(expected);
      expect(total).toBe(expected.length);
      expect(expected.length).toBeGreaterThan(0);
    },
  );

  it("matches province exactly: case, accents and spaces count", async () => {
    const ids = async (q: string) =>
      (await walk(`province=${encodeURIComponent(q)}`)).items.map((p) => p.practice_id);
    for (const text of ["Antwerpen", "ANTWERPEN", "antwerpen", "Liege", "Liège", "Antwerpen "]) {
      expect(await ids(text), text).toEqual(
        all.filter((p) => p.address.province === text).map((p) => p.practice_id),
      );
    }
    // The data set holds the upper-case spelling too: a case-insensitive match would merge them.
    expect(all.some((p) => p.address.province === "ANTWERPEN")).toBe(true);
  });

  it("splits the list: active and inactive, visible and invisible add up to the whole", async () => {
    const total = async (q: string) =>
      (await svc.get(`/v1/practices?per_page=1&${q}`)).body.meta.pagination?.total;
    expect(((await total("active=true")) ?? 0) + ((await total("active=false")) ?? 0)).toBe(
      all.length,
    );
    expect(((await total("visible=true")) ?? 0) + ((await total("visible=false")) ?? 0)).toBe(
      all.length,
    );
  });

  it("searches the exact name only: another case or a part finds nothing", async () => {
    const shared = await walk(`search=${encodeURIComponent(fixtures.values.sharedPracticeName)}`);
    expect(shared.items.map((p) => p.practice_id)).toEqual(
      expect.arrayContaining([P.sharedNameFirst, P.sharedNameSecond]),
    );
    for (const q of ["Tandartspraktijk de linde", "De Linde", "Tandartspraktijk"]) {
      expect((await svc.get(`/v1/practices?search=${encodeURIComponent(q)}`)).body.data, q).toEqual(
        [],
      );
    }
  });

  it("searches the name the practice shows: the primary copy only when the CRM name is missing", async () => {
    const fallback = await svc.get<Practice[]>(
      `/v1/practices?search=${encodeURIComponent("Dental Care Sint-Pieters")}`,
    );
    expect(fallback.body.data.map((p) => p.practice_id)).toEqual([P.nameFromPrimaryCopy]);
    // The collision fixture's primary copy is "TC Zuid", but its CRM name is what it is called.
    expect((await svc.get("/v1/practices?search=TC%20Zuid")).body.data).toEqual([]);
  });

  it("treats an upper-case NL in the source as no language: null, and not selected by language=nl", async () => {
    const upper =
      await sql(`SELECT crm_ref AS id FROM tbl_praktijk GROUP BY crm_ref HAVING COUNT(*) = 1 AND MAX(taal = BINARY 'NL') = 1
      UNION SELECT c.crm_id FROM crm_bedrijf c WHERE c.taal = BINARY 'NL' AND NOT EXISTS (SELECT 1 FROM tbl_praktijk p WHERE p.crm_ref = c.crm_id)`);
    expect(upper.length).toBeGreaterThan(0);
    const nl = new Set((await walk("language=nl")).items.map((p) => p.practice_id));
    for (const id of upper) {
      expect(all.find((p) => p.practice_id === id)?.language, id).toBeNull();
      expect(nl.has(id), id).toBe(false);
    }
  });
});

describe("the representative row of a practice with several primary rows", () => {
  const view = (p: Practice | undefined) =>
    p && {
      name: p.name,
      active: p.active,
      visible: p.visible,
      language: p.language,
      warnings: p.warnings,
    };

  it("prefers an active and visible row, then the latest, then the highest row id", () => {
    expect(view(all.find((p) => p.practice_id === "REP-AV"))).toEqual({
      name: "Rep AV winner",
      active: true,
      visible: true,
      language: "fr",
      warnings: ["source_record_missing"],
    });
    expect(view(all.find((p) => p.practice_id === "REP-LATEST"))).toEqual({
      name: "Rep latest",
      active: false,
      visible: false,
      language: "fr",
      warnings: ["source_record_missing"],
    });
    expect(view(all.find((p) => p.practice_id === "REP-ID"))).toEqual({
      name: "Rep higher id",
      active: false,
      visible: false,
      language: "fr",
      warnings: ["source_record_missing"],
    });
  });

  it("filters on the representative row's values, not on any row's", async () => {
    const ids = async (q: string) =>
      (await walk(q)).items.map((p) => p.practice_id).filter((id) => id.startsWith("REP-"));
    expect(await ids("visible=false")).toEqual(["REP-ID", "REP-LATEST"]);
    expect(await ids("language=nl")).toEqual([]);
    expect(await ids("language=fr")).toEqual(["REP-AV", "REP-ID", "REP-LATEST"]);
    expect(await ids("active=true")).toEqual(["REP-AV"]);
    expect(await ids(`search=${encodeURIComponent("Rep AV newer")}`)).toEqual([]);
    expect(await ids(`search=${encodeURIComponent("Rep latest")}`)).toEqual(["REP-LATEST"]);
  });
});
