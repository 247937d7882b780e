import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtures, generateDataset, type VacatureRow } from "@svc/sandbox";
import type { TempDatabase } from "@svc/testing";
import type { Vacancy } from "../src/domain/vacancy-catalogue.ts";
import { pageStatement } from "../src/source/mysql-vacancy-source.ts";
import type { VacancyFilter } from "../src/domain/ports.ts";
import {
  seededLegacyDatabase,
  SEED,
  startVacancies,
  TODAY,
  uuidsOf,
  walkAll,
  type Envelope,
  type RunningVacancies,
} from "./support/harness.ts";

// GET /v1/vacancies against fixtures plus a small bulk (scale 0.25: 549 rows, every oddity in
// realistic proportions). The generator's own rows are the oracle for which vacancies exist.
const SCALE = 0.25;
const V = fixtures.vacancies;
const P = fixtures.practices;

let database: TempDatabase;
let run: RunningVacancies;
/** The same service with every page on the deep-page plans (early pages walk an index instead). */
let deep: RunningVacancies;
/** The same service with every page walked from a page mark (one every 5 rows). */
let marked: RunningVacancies;
let rows: VacatureRow[];
/** Every live vacancy, in list order, from an unfiltered walk. */
let all: Vacancy[];

beforeAll(async () => {
  database = await seededLegacyDatabase(SCALE);
  run = await startVacancies({ legacyUrl: database.url });
  deep = await startVacancies({ legacyUrl: database.url, earlyRows: 0 });
  marked = await startVacancies({
    legacyUrl: database.url,
    earlyRows: 0,
    marks: { spacing: 5, ttlMs: 60_000 },
  });
  rows = [...generateDataset({ seed: SEED, scale: SCALE, today: TODAY }).rows("tbl_vacature")];
  all = (await walkAll(run, "", 100)).items;
});
afterAll(async () => {
  await run.close();
  await deep.close();
  await marked.close();
  await database.drop();
});

const since = (iso: string) => (v: Vacancy) =>
  v.updated_at !== null && Date.parse(v.updated_at) >= Date.parse(iso);

describe("GET /v1/vacancies pagination", () => {
  it.each([
    ["early-page", () => run],
    ["deep-page", () => deep],
    ["page-mark", () => marked],
  ])(
    "walks every page at per_page=7 and meets every live vacancy exactly once, in a stable order (%s plans)",
    async (_plans, service) => {
      const walk = await walkAll(service(), "", 7);
      const live = rows.filter((r) => r.verwijderd === 0);
      expect(walk.items.map((v) => v.uuid)).toEqual(live.map((r) => r.uuid));
      expect(new Set(walk.items.map((v) => v.uuid)).size).toBe(walk.items.length);
      expect(walk.total).toBe(live.length);
      expect(walk.pages).toBe(Math.ceil(live.length / 7));
      expect(walk.items.map((v) => v.uuid)).not.toContain(V.softDeleted);
    },
  );

  it("defaults to page 1 of 25 and reports the totals", async () => {
    const res = await run.get<Envelope<Vacancy[]>>("/v1/vacancies");
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(25);
    expect(res.body.meta.pagination).toEqual({
      page: 1,
      per_page: 25,
      total: all.length,
      total_pages: Math.ceil(all.length / 25),
    });
  });

  it("answers a page past the end with no items and the same totals", async () => {
    const res = await run.get<Envelope<Vacancy[]>>("/v1/vacancies?per_page=100&page=99");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.pagination).toEqual({
      page: 99,
      per_page: 100,
      total: all.length,
      total_pages: Math.ceil(all.length / 100),
    });
  });

  it("serves a last partial page", async () => {
    const last = Math.ceil(all.length / 100);
    const res = await run.get<Envelope<Vacancy[]>>(`/v1/vacancies?per_page=100&page=${last}`);
    expect(uuidsOf(res.body.data)).toEqual(uuidsOf(all.slice((last - 1) * 100)));
  });
});

describe("GET /v1/vacancies filters", () => {
  const cases: Array<[string, (v: Vacancy) => boolean]> = [
    ["language=nl", (v) => v.language === "nl"],
    ["language=fr", (v) => v.language === "fr"],
    ["province=OVL", (v) => v.location.province.code === "OVL"],
    ["province=BRA", (v) => v.location.province.code === "BRA"],
    ["province=ZLD", (v) => v.location.province.code === "ZLD"],
    ["position=TA", (v) => v.position.code === "TA"],
    ["position=STAG", (v) => v.position.code === "STAG"],
    ["position=DH", (v) => v.position.code === "DH"],
    ["status=created", (v) => v.status.value === "created"],
    ["status=open", (v) => v.status.value === "open"],
    ["status=filled", (v) => v.status.value === "filled"],
    ["published=true", (v) => v.published],
    ["published=false", (v) => !v.published],
    [`practice=${P.primaryComplete}`, (v) => v.practice.legacy_reference === P.primaryComplete],
    [
      `practice=${encodeURIComponent(P.legacyIdWithSlash)}`,
      (v) => v.practice.legacy_reference === P.legacyIdWithSlash,
    ],
    ["updated_since=2025-01-01", since("2025-01-01T00:00:00+01:00")],
    ["updated_since=2025-03-10T08:30:00Z", since("2025-03-10T08:30:00Z")],
    [
      `updated_since=${encodeURIComponent("2024-07-01T12:00:00+02:00")}`,
      since("2024-07-01T12:00:00+02:00"),
    ],
    [
      "language=nl&published=true&province=OVL",
      (v) => v.language === "nl" && v.published && v.location.province.code === "OVL",
    ],
    [
      "status=created&position=TA&published=false",
      (v) => v.status.value === "created" && v.position.code === "TA" && !v.published,
    ],
    [
      "language=fr&updated_since=2024-06-01",
      (v) => v.language === "fr" && since("2024-06-01T00:00:00+02:00")(v),
    ],
    [
      "published=true&updated_since=2024-06-01",
      (v) => v.published && since("2024-06-01T00:00:00+02:00")(v),
    ],
    [
      "position=TA&updated_since=2025-01-01",
      (v) => v.position.code === "TA" && since("2025-01-01T00:00:00+01:00")(v),
    ],
    [
      "province=OVL&position=TA&status=created&language=nl",
      (v) =>
        v.location.province.code === "OVL" &&
        v.position.code === "TA" &&
        v.status.value === "created" &&
        v.language === "nl",
    ],
    [
      `practice=${P.primaryComplete}&updated_since=2024-05-01&language=nl`,
      (v) =>
        v.practice.legacy_reference === P.primaryComplete &&
        v.language === "nl" &&
        since("2024-05-01T00:00:00+02:00")(v),
    ],
    [
      `published=false&status=created&updated_since=2024-01-01`,
      (v) => !v.published && v.status.value === "created" && since("2024-01-01T00:00:00+01:00")(v),
    ],
  ];

  it.each(cases)(
    "%s returns exactly the vacancies whose fields match, in list order, on the early-page, deep-page and page-mark plans",
    async (query, matches) => {
      const expected = all.filter(matches);
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(all.length);
      for (const service of [run, deep, marked]) {
        const walk = await walkAll(service, query, 100);
        expect(walk.items.map((v) => v.uuid)).toEqual(expected.map((v) => v.uuid));
        expect(walk.total).toBe(expected.length);
      }
    },
  );

  it("language=nl leaves out the case variants (NL, nl-BE) that a case-insensitive column would match", async () => {
    const odd = rows
      .filter((r) => r.verwijderd === 0 && (r.taal === "NL" || r.taal === "nl-BE"))
      .map((r) => r.uuid);
    expect(odd.length).toBeGreaterThan(0);
    const nl = uuidsOf((await walkAll(run, "language=nl", 100)).items);
    for (const uuid of odd) {
      expect(nl).not.toContain(uuid);
      expect(all.find((v) => v.uuid === uuid)?.language).toBeNull();
    }
  });

  it("combines practice with status and publication", async () => {
    expect(
      uuidsOf((await walkAll(run, `practice=${P.primaryComplete}&status=filled`, 100)).items),
    ).toEqual([V.statusFilled]);
    expect(
      uuidsOf((await walkAll(run, `practice=${P.primaryComplete}&published=false`, 100)).items),
    ).toEqual([V.invisible, V.invisibleWithPastDisplayDate, V.displayDateFuture].sort());
  });

  it("updated_since with a date starts at midnight in Brussels, not in UTC", async () => {
    // A change between 00:00 and 02:00 Brussels time happened on the previous UTC day.
    const lateNight = all.find((v) => v.updated_at !== null && /T0[01]:/.test(v.updated_at));
    const localDate = lateNight?.updated_at?.slice(0, 10) ?? "";
    expect(lateNight).toBeDefined();
    expect(uuidsOf((await walkAll(run, `updated_since=${localDate}`, 100)).items)).toContain(
      lateNight?.uuid,
    );
    const nextDay = new Date(Date.parse(`${localDate}T12:00:00Z`) + 86_400_000)
      .toISOString()
      .slice(0, 10);
    expect(uuidsOf((await walkAll(run, `updated_since=${nextDay}`, 100)).items)).not.toContain(
      lateNight?.uuid,
    );
  });

  it("updated_since with a date-time compares at the Brussels offset of that instant, to the second", async () => {
    const has = async (value: string) =>
      uuidsOf(
        (await walkAll(run, `updated_since=${encodeURIComponent(value)}`, 100)).items,
      ).includes(V.dstFallBack);
    // dstFallBack was updated at 03:15 CET on 2024-10-27, that is 02:15 UTC.
    expect(await has("2024-10-27T02:15:00Z")).toBe(true);
    expect(await has("2024-10-27T02:15:01Z")).toBe(false);
    expect(await has("2024-10-27T03:15:00+01:00")).toBe(true);
    expect(await has("2024-10-27T04:15:00+02:00")).toBe(true);
    expect(await has("2024-10-27T04:15:01+02:00")).toBe(false);
  });

  it("updated_since leaves out vacancies without a modification time", async () => {
    expect(uuidsOf((await walkAll(run, "updated_since=1990-01-01", 100)).items)).not.toContain(
      V.timestampsMissing,
    );
  });
});

describe("GET /v1/vacancies query plans", () => {
  type PlanStep = {
    select_type: string;
    table: string;
    type: string;
    key: string | null;
    Extra: string | null;
  };
  const explain = async (
    filter: VacancyFilter,
    page: { offset: number; limit: number },
    plan: { earlyRows?: number } = {},
  ) => {
    const statement = pageStatement(filter, { today: TODAY }, page, plan);
    return run.legacy.query<PlanStep>(`EXPLAIN ${statement.sql}`, statement.params);
  };

  /**
   * The steps that find a page's vacancies, from EXPLAIN: the walk over the vacancies and the index
   * joins of further filters, in the derived table of ids or in the one-level statement of a page
   * with nothing to skip (not the label lookups, nor the join back from the ids to the rows).
   */
  async function idSteps(
    filter: VacancyFilter,
    earlyRows?: number,
    offset = 0,
  ): Promise<PlanStep[]> {
    const plan = await explain(filter, { offset, limit: 100 }, { earlyRows });
    return plan.filter(
      (step) =>
        /^(v|f\d+)$/.test(step.table) &&
        (step.select_type === "DERIVED" || step.select_type === "SIMPLE"),
    );
  }

  const FIRST_PAGE_FILTERS: Array<[string, VacancyFilter]> = [
    ["no filter", {}],
    ["published=true", { published: true }],
    ["published=false", { published: false }],
    ["language=nl&published=true", { language: "nl", published: true }],
    ["province=OVL&published=false", { province: "OVL", published: false }],
    ["province=OVL&position=TA", { province: "OVL", position: "TA" }],
  ];

  // Sorting every matching id costs as much for page 1 as for the last page; an early page walks an
  // index in key order and stops (docs/decisions/list-pages.md).
  it.each(FIRST_PAGE_FILTERS)(
    "page 1 with %s is one walk in key order: no derived table of ids, no sort, no temporary table",
    async (_query, filter) => {
      const plan = await explain(filter, { offset: 0, limit: 100 });
      expect(plan.map((step) => step.select_type)).not.toContain("DERIVED");
      expect((await idSteps(filter)).length).toBeGreaterThan(0);
      for (const step of plan) expect(step.Extra ?? "").not.toMatch(/filesort|temporary/);
    },
  );

  // With an OFFSET, the one-level walk would read every skipped row whole (MEDIUMTEXT columns).
  it.each(FIRST_PAGE_FILTERS)(
    "page 3 with %s finds its ids first (a derived table), in key order without sorting them",
    async (_query, filter) => {
      const steps = await idSteps(filter, undefined, 200);
      expect(steps.length).toBeGreaterThan(0);
      for (const step of steps) {
        expect(step.select_type).toBe("DERIVED");
        expect(step.Extra ?? "").not.toMatch(/filesort/);
      }
    },
  );

  it.each<[string, VacancyFilter]>([
    ["no filter", {}],
    ["published=true", { published: true }],
    ["language=nl&published=true", { language: "nl", published: true }],
    ["province=OVL&position=TA", { province: "OVL", position: "TA" }],
  ])(
    "a page walked from a page mark with %s finds its ids in key order from the mark, without sorting them",
    async (_query, filter) => {
      const statement = pageStatement(
        filter,
        { today: TODAY },
        { offset: 3, limit: 100 },
        { fromKey: 200 },
      );
      const plan = await run.legacy.query<{
        select_type: string;
        type: string;
        key: string | null;
        Extra: string | null;
      }>(`EXPLAIN ${statement.sql}`, statement.params);
      const steps = plan.filter((step) => step.select_type === "DERIVED");
      expect(steps[0]?.type).toBe("range");
      for (const step of steps) expect(step.Extra ?? "").not.toMatch(/filesort/);
    },
  );

  // A walk of the modification index meets the rows out of key order: only their ids are sorted.
  it.each<[string, VacancyFilter]>([
    ["updated_since", { updatedSinceLocal: "2020-01-01 00:00:00" }],
    ["updated_since&province=OVL", { updatedSinceLocal: "2020-01-01 00:00:00", province: "OVL" }],
    ["updated_since&published=true", { updatedSinceLocal: "2020-01-01 00:00:00", published: true }],
  ])(
    "page 1 with %s finds its ids first (a derived table), not in one walk",
    async (_query, filter) => {
      const plan = await explain(filter, { offset: 0, limit: 100 });
      expect(plan.map((step) => step.select_type)).toContain("DERIVED");
    },
  );

  it("a deep page with language and published is driven by the publication index instead of the language one", async () => {
    const filter: VacancyFilter = { language: "nl", published: true };
    expect((await idSteps(filter, 0)).map((s) => s.key)).toEqual([
      "idx_vac_gepubliceerd",
      "idx_vac_taal",
    ]);
    expect((await idSteps(filter)).map((s) => s.key)).toEqual(["idx_vac_taal"]);
    expect((await idSteps(filter, undefined, 200)).map((s) => s.key)).toEqual(["idx_vac_taal"]);
  });
});
