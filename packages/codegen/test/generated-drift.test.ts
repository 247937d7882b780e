/**
 * The committed generated modules are what the OpenAPI document gives: a change to the document
 * fails here until `npm run generate -w @integration-service/codegen` is run and committed.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generatedFiles, DOCUMENT_FILE } from "../src/generate.ts";
import { schemaToTs } from "../src/schema-to-ts.ts";
import type { OpenApiDocument } from "../src/client-types.ts";

describe("generated types", () => {
  it("match the OpenAPI document byte for byte", async () => {
    for (const { file, text } of await generatedFiles())
      expect(readFileSync(file, "utf8"), `${file}: run npm run generate`).toBe(text);
  });

  it("differ when the document changes", async () => {
    const doc = JSON.parse(readFileSync(DOCUMENT_FILE, "utf8")) as OpenApiDocument;
    doc.components.schemas.Vacancy!.properties!.title = { type: "integer" };
    const [client] = await generatedFiles(doc);
    expect(client!.text).not.toBe(readFileSync(client!.file, "utf8"));
  });

  it("keep null-typed members: a field of type null, and one that may be null", () => {
    expect(schemaToTs({ type: "null" })).toBe("null");
    expect(schemaToTs({ anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] })).toBe(
      "string | null",
    );
    expect(
      schemaToTs({
        type: "object",
        additionalProperties: false,
        required: ["gone"],
        properties: { gone: { type: "null" }, maybe: { type: ["integer", "null"] } },
      }),
    ).toBe("{\n  gone: null;\n  maybe?: number | null;\n}");
  });

  it("keep a string's type beside an allOf of patterns", () => {
    expect(schemaToTs({ type: "string", allOf: [{ pattern: "^a" }, { pattern: "b$" }] })).toBe(
      "string",
    );
    expect(schemaToTs({ allOf: [{ pattern: "^a" }] })).toBe("unknown");
  });
});
