/**
 * GET /v1/meta/practices: the same catalogue the responses follow, with what the sources hold as
 * observed values, and no business data.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KINDS, SOURCES, type FieldMetadata } from "@svc/catalogue";
import { OCCURRED_AT } from "@svc/events";
import { TABLES } from "@svc/legacy";
import type { TempDatabase } from "@svc/testing";
import type { Practice } from "../src/domain/practice.ts";
import { PRACTICE_FIELDS } from "../src/domain/practice-catalogue.ts";
import { legacyKeysIn } from "./support/conformance.ts";
import { seedLegacy, startPractices, type PracticesApp } from "./support/harness.ts";

interface Metadata {
  resource: string;
  endpoint: string;
  identifier: string;
  schema_version: number;
  fields: FieldMetadata[];
  reference_lists: Record<string, unknown>;
  kinds: Record<string, string>;
  sources: Record<string, string>;
  events: Record<string, { occurred_at: string }>;
}

let legacy: TempDatabase;
let svc: PracticesApp;
let meta: Metadata;

beforeAll(async () => {
  legacy = await seedLegacy(1);
  svc = await startPractices({ legacyUrl: legacy.url });
  const res = await svc.get<Metadata>("/v1/meta/practices");
  expect(res.status).toBe(200);
  meta = res.body.data;
});
afterAll(async () => {
  await svc?.close();
  await legacy?.drop();
});

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "number" ? "number" : typeof value;
}

function valueAt(resource: unknown, path: string): unknown {
  return path
    .split(".")
    .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], resource);
}

describe("practice metadata", () => {
  it("describes the practice resource with every part of the metadata resource and no reference lists", () => {
    expect(meta).toMatchObject({
      resource: "practice",
      endpoint: "/v1/practices",
      identifier: "practice_id",
      schema_version: 1,
      reference_lists: {},
    });
    expect(meta.kinds).toEqual(KINDS);
    expect(meta.sources).toEqual(SOURCES);
    // What occurred_at means for each practice event, and no other entity's events.
    expect(meta.events).toEqual({
      "practice.created": { occurred_at: OCCURRED_AT["practice.created"] },
      "practice.updated": { occurred_at: OCCURRED_AT["practice.updated"] },
      "practice.deleted": { occurred_at: OCCURRED_AT["practice.deleted"] },
    });
    expect(meta.events["practice.updated"]?.occurred_at).toMatch(/modification time/);
    expect(meta.events["practice.deleted"]?.occurred_at).toMatch(/^When the service detected/);
    for (const field of meta.fields) {
      expect(Object.keys(field).sort()).toEqual(
        [
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
        ].sort(),
      );
      expect(field.description.length, field.path).toBeGreaterThan(10);
    }
  });

  it("lists exactly the fields the catalogue holds, which are the fields of a practice", async () => {
    expect(meta.fields.map((f) => f.path)).toEqual(PRACTICE_FIELDS.map((f) => f.path));
    const list = await svc.get<Practice[]>("/v1/practices?per_page=100");
    for (const practice of list.body.data) {
      for (const field of meta.fields) {
        const value = valueAt(practice, field.path);
        const allowed = Array.isArray(field.json_type) ? field.json_type : [field.json_type];
        expect(allowed, `${practice.practice_id} ${field.path}`).toContain(typeOf(value));
        if (value === null) expect(field.nullable, field.path).toBe(true);
      }
    }
  });

  it("names the enums' allowed values: language, geo precision and warnings", () => {
    const allowed = (path: string) =>
      meta.fields.find((f) => f.path === path)?.allowed_values?.map((v) => v.value);
    expect(allowed("language")).toEqual(["nl", "fr"]);
    expect(allowed("address.geo_precision")).toEqual(["postal_code"]);
    expect(allowed("warnings")).toEqual(["multiple_active_rows", "source_record_missing"]);
  });

  it("publishes the countries, organisation types and provinces the sources hold, case variants apart", () => {
    const observed = (path: string) =>
      meta.fields.find((f) => f.path === path)?.observed_values ?? null;
    const countries = observed("address.country")?.map((v) => v.value) ?? [];
    expect(countries).toEqual(expect.arrayContaining(["BE", "be", "België", "Nederland"]));
    expect(observed("organisation_type")?.map((v) => v.value)).toEqual(
      expect.arrayContaining(["Groepspraktijk", "groepspraktijk", "BV"]),
    );
    expect(observed("address.province")?.map((v) => v.value)).toEqual(
      expect.arrayContaining(["Antwerpen", "ANTWERPEN", "Oost-Vlaanderen"]),
    );
    for (const v of observed("address.country") ?? [])
      expect(v.note).toMatch(/^held by \d+ CRM records$/);
    expect(observed("name")).toBeNull();
    expect(observed("language")).toBeNull();
  });

  it("speaks no legacy name: none as a key, no legacy table named in any text", () => {
    expect(legacyKeysIn(meta)).toEqual([]);
    const text = JSON.stringify(meta);
    for (const table of Object.values(TABLES)) expect(text).not.toContain(table);
  });

  it("says that the province filter and the name search are case-sensitive", () => {
    expect(meta.fields.find((f) => f.path === "address.province")?.description).toMatch(
      /case-, accent- and space-sensitive/,
    );
    expect(meta.fields.find((f) => f.path === "name")?.description).toMatch(
      /search.*case-, accent- and space-sensitive/,
    );
  });
});
