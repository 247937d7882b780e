import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  conformanceProblems,
  jsonTypeOf,
  KINDS,
  SOURCES,
  type FieldMetadata,
} from "@svc/catalogue";
import { OCCURRED_AT } from "@svc/events";
import { TABLES } from "@svc/legacy";
import { COLUMNS, fixtures, MARKER_TABLE, POSITIONS, PROVINCES } from "@svc/sandbox";
import type { TempDatabase } from "@svc/testing";
import { VACANCY_FIELDS } from "../src/domain/vacancy-catalogue.ts";
import type { Vacancy } from "../src/domain/vacancy-catalogue.ts";
import {
  seededLegacyDatabase,
  startVacancies,
  walkAll,
  type Envelope,
  type RunningVacancies,
} from "./support/harness.ts";

// The metadata resource; legacy table and column names never appear in a response.
let database: TempDatabase;
let run: RunningVacancies;
let meta: {
  status: number;
  text: string;
  body: Envelope<Record<string, unknown> & { fields: FieldMetadata[] }>;
};
let items: Vacancy[];

beforeAll(async () => {
  database = await seededLegacyDatabase(0.1);
  run = await startVacancies({ legacyUrl: database.url });
  meta = await run.get("/v1/meta/vacancies");
  items = (await walkAll(run, "", 100)).items;
});
afterAll(async () => {
  await run.close();
  await database.drop();
});

type Entry = { code: string; label: string; active: boolean };
const expectedEntries = (
  rows: ReadonlyArray<
    { omschrijving: string; actief: number; volgorde: number } & Record<string, unknown>
  >,
  code: string,
): Entry[] =>
  [...rows]
    .sort((a, b) => a.volgorde - b.volgorde)
    .map((r) => ({ code: String(r[code]), label: r.omschrijving, active: r.actief === 1 }));

describe("GET /v1/meta/vacancies", () => {
  it("describes the resource with every part of the metadata resource", () => {
    expect(meta.status).toBe(200);
    const data = meta.body.data;
    expect(Object.keys(data).sort()).toEqual([
      "endpoint",
      "events",
      "fields",
      "identifier",
      "kinds",
      "reference_lists",
      "resource",
      "schema_version",
      "sources",
    ]);
    expect(data).toMatchObject({
      resource: "vacancy",
      endpoint: "/v1/vacancies",
      identifier: "uuid",
      schema_version: 1,
      kinds: KINDS,
      sources: SOURCES,
    });
    // What occurred_at means for each vacancy event, and no other entity's events.
    expect(data.events).toEqual({
      "vacancy.created": { occurred_at: OCCURRED_AT["vacancy.created"] },
      "vacancy.updated": { occurred_at: OCCURRED_AT["vacancy.updated"] },
      "vacancy.deleted": { occurred_at: OCCURRED_AT["vacancy.deleted"] },
    });
    for (const field of data.fields) {
      expect(Object.keys(field).sort()).toEqual([
        "allowed_values",
        "description",
        "example",
        "json_type",
        "kind",
        "nullable",
        "observed_values",
        "path",
        "picklist",
        "reference_list",
        "references",
        "source",
      ]);
      expect(field.description.length).toBeGreaterThan(10);
    }
  });

  it("publishes both reference lists from the primary database, inactive entries included", () => {
    expect(meta.body.data.reference_lists).toEqual({
      positions: { used_by: "position.code", entries: expectedEntries(POSITIONS, "functie_code") },
      provinces: {
        used_by: "location.province.code",
        entries: expectedEntries(PROVINCES, "provincie_code"),
      },
    });
    const positions = (meta.body.data.reference_lists as { positions: { entries: Entry[] } })
      .positions.entries;
    expect(positions.find((e) => e.code === fixtures.values.inactivePositionCode)).toEqual({
      code: "STAG",
      label: "Stagiair tandarts",
      active: false,
    });
  });

  it("points each reference-list field at a published list, and each reference at the practices resource", () => {
    const lists = Object.keys(meta.body.data.reference_lists as object);
    const byPath = new Map(meta.body.data.fields.map((f) => [f.path, f]));
    expect(byPath.get("location.province.code")).toMatchObject({
      kind: "reference_list",
      reference_list: "provinces",
      picklist: true,
    });
    expect(byPath.get("position.code")).toMatchObject({
      kind: "reference_list",
      reference_list: "positions",
      picklist: true,
    });
    expect(byPath.get("practice.legacy_reference")).toMatchObject({
      kind: "reference",
      references: "practices.practice_id",
    });
    for (const f of meta.body.data.fields)
      if (f.reference_list !== null) expect(lists).toContain(f.reference_list);
  });

  it("lists every field of every vacancy with its JSON type and nullability, and nothing else", () => {
    const published = meta.body.data.fields;
    expect(published.map((f) => f.path)).toEqual(VACANCY_FIELDS.map((f) => f.path));
    // The published metadata and the catalogue agree entry by entry, so checking responses against
    // the catalogue checks them against what the metadata endpoint tells clients.
    for (const f of VACANCY_FIELDS)
      expect(published.find((p) => p.path === f.path)).toMatchObject({
        json_type: jsonTypeOf(f),
        nullable: f.nullable,
        kind: f.kind,
      });
    expect(items.length).toBeGreaterThan(200);
    for (const item of items) expect(conformanceProblems(VACANCY_FIELDS, item)).toEqual([]);
  });

  it("describes the single-vacancy response the same way", async () => {
    for (const uuid of Object.values(fixtures.vacancies).filter(
      (u) => u !== fixtures.vacancies.softDeleted,
    )) {
      const res = await run.get<Envelope<Vacancy>>(`/v1/vacancies/${uuid}`);
      expect(conformanceProblems(VACANCY_FIELDS, res.body.data), uuid).toEqual([]);
    }
  });

  it("shows every allowed value of each enum somewhere in the data", () => {
    for (const field of meta.body.data.fields.filter((f) => f.allowed_values !== null)) {
      const seen = new Set(
        items.map((v) =>
          field.path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], v),
        ),
      );
      for (const allowed of field.allowed_values ?? [])
        expect(seen, `${field.path} = ${allowed.value}`).toContain(allowed.value);
    }
  });
});

describe("legacy names", () => {
  const legacyTables: string[] = [...Object.values(TABLES), MARKER_TABLE];
  const legacyColumns: string[] = Object.values(COLUMNS).flatMap(
    (columns) => [...columns] as string[],
  );
  // uuid, slug, teaser and status are contract field names that happen to match a column.
  const canonical = new Set(VACANCY_FIELDS.flatMap((f) => f.path.split(".")));
  const forbidden = [...new Set([...legacyTables, ...legacyColumns])].filter(
    (name) => !canonical.has(name),
  );

  function keysOf(value: unknown, into = new Set<string>()): Set<string> {
    if (Array.isArray(value)) value.forEach((v) => keysOf(v, into));
    else if (value !== null && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) {
        into.add(k);
        keysOf(v, into);
      }
    }
    return into;
  }

  async function responses(): Promise<Array<[string, string]>> {
    const paths = [
      "/v1/vacancies?per_page=100",
      "/v1/vacancies?per_page=100&page=2",
      `/v1/vacancies/${fixtures.vacancies.ordinary}`,
      "/v1/meta/vacancies",
      "/v1/vacancies/00000000-0000-4000-8000-000000000000",
      "/v1/vacancies?bogus=1",
    ];
    return Promise.all(paths.map(async (p) => [p, (await run.get(p)).text] as [string, string]));
  }

  it("never uses a legacy table or column name as a key", async () => {
    expect(forbidden).toEqual(
      expect.arrayContaining(["tbl_vacature", "kop_publiek", "taal", "verwijderd", "omschrijving"]),
    );
    for (const [path, text] of await responses()) {
      const keys = keysOf(JSON.parse(text));
      expect(
        forbidden.filter((name) => keys.has(name)),
        path,
      ).toEqual([]);
    }
  });

  it("never mentions a compound legacy name anywhere in the text (names no prose or HTML contains)", async () => {
    const compound = forbidden.filter((name) => name.includes("_"));
    expect(compound.length).toBeGreaterThan(20);
    for (const [path, text] of await responses()) {
      expect(
        compound.filter((name) => text.includes(name)),
        path,
      ).toEqual([]);
    }
  });
});
