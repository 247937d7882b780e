import { describe, expect, it } from "vitest";
import {
  conformanceProblems,
  metadataResource,
  toJsonSchema,
  type FieldSpec,
} from "../src/index.ts";

const fields: FieldSpec[] = [
  {
    path: "uuid",
    type: "string",
    nullable: false,
    kind: "identifier",
    source: "primary",
    description: "id",
    example: "a",
  },
  {
    path: "language",
    type: "string",
    nullable: true,
    kind: "enum",
    source: "primary",
    description: "lang",
    example: "nl",
    allowedValues: [
      { value: "nl", description: "Dutch" },
      { value: "fr", description: "French" },
    ],
  },
  {
    path: "location.province.code",
    type: "string",
    nullable: true,
    kind: "reference_list",
    source: "primary",
    description: "code",
    referenceList: "provinces",
    example: "ANT",
  },
  {
    path: "location.latitude",
    type: "null",
    nullable: true,
    kind: "reserved",
    source: "none",
    description: "reserved",
    example: null,
  },
  {
    path: "tdm_ids",
    type: "array",
    items: "string",
    nullable: false,
    kind: "list",
    source: "primary",
    description: "ids",
    example: [],
  },
  {
    path: "warnings",
    type: "array",
    items: "string",
    nullable: false,
    kind: "enum",
    source: "svc_derived",
    description: "w",
    example: [],
    allowedValues: [{ value: "source_record_missing", description: "no CRM row" }],
  },
];

describe("metadataResource", () => {
  it("describes each field with every attribute a metadata field has", () => {
    const meta = metadataResource(
      { resource: "vacancy", endpoint: "/v1/vacancies", identifier: "uuid", schemaVersion: 1 },
      fields,
      {
        observedValues: { language: [{ value: "de", note: "becomes null" }] },
      },
    );
    expect(Object.keys(meta).sort()).toEqual([
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
    const language = meta.fields.find((f) => f.path === "language");
    expect(language).toEqual({
      path: "language",
      json_type: ["string", "null"],
      nullable: true,
      kind: "enum",
      description: "lang",
      source: "primary",
      picklist: true,
      allowed_values: [
        { value: "nl", description: "Dutch" },
        { value: "fr", description: "French" },
      ],
      reference_list: null,
      references: null,
      observed_values: [{ value: "de", note: "becomes null" }],
      example: "nl",
    });
    expect(meta.fields.find((f) => f.path === "location.latitude")?.json_type).toBe("null");
    expect(meta.events).toEqual({});
    expect(
      metadataResource(
        { resource: "vacancy", endpoint: "/v1/vacancies", identifier: "uuid", schemaVersion: 1 },
        fields,
        { events: { "vacancy.created": "when it was stamped" } },
      ).events,
    ).toEqual({ "vacancy.created": { occurred_at: "when it was stamped" } });
    expect(Object.keys(meta.kinds)).toHaveLength(14);
    expect(Object.keys(meta.sources).sort()).toEqual([
      "crm_via_primary",
      "none",
      "primary",
      "svc_derived",
    ]);
  });
});

describe("conformanceProblems", () => {
  const good = {
    uuid: "a",
    language: null,
    location: { province: { code: "X" }, latitude: null },
    tdm_ids: ["1"],
    warnings: [],
  };
  it("accepts a conforming object", () => {
    expect(conformanceProblems(fields, good)).toEqual([]);
  });
  it("finds unknown, missing, mistyped, wrongly null and out-of-enum fields", () => {
    const bad = {
      uuid: null,
      language: "de",
      location: { province: { code: 3 } },
      tdm_ids: [1],
      warnings: ["source_record_missing", "made_up"],
      legacy_col: "x",
    };
    expect(conformanceProblems(fields, bad).sort()).toEqual([
      "language: 'de' not an allowed value",
      "legacy_col: not in the catalogue",
      "location.latitude: missing from the response",
      "location.province.code: integer, catalogue says string",
      "tdm_ids[]: integer, catalogue says string",
      "uuid: null but not nullable",
      "warnings[]: 'made_up' not an allowed value",
    ]);
  });
});

describe("toJsonSchema", () => {
  it("nests dotted paths, requires every property and allows nothing else", () => {
    const schema = toJsonSchema(fields) as {
      properties: Record<string, { properties?: Record<string, unknown>; required?: string[] }>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(schema.required).toEqual(["uuid", "language", "location", "tdm_ids", "warnings"]);
    expect(schema.properties.warnings).toMatchObject({
      type: "array",
      items: { enum: ["source_record_missing"] },
    });
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.location?.required).toEqual(["province", "latitude"]);
    expect(schema.properties.language).toMatchObject({
      type: ["string", "null"],
      enum: ["nl", "fr", null],
    });
  });
});
