/**
 * The generated modules of the client and webhooks packages, from the OpenAPI document,
 * formatted by the repository's Prettier configuration (so the committed files pass its check).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";
import { clientTypes, type OpenApiDocument } from "./client-types.ts";
import { eventTypes } from "./event-types.ts";

const at = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export const DOCUMENT_FILE = at("../../../shared/openapi/openapi.json");

async function formatted(file: string, text: string): Promise<{ file: string; text: string }> {
  const options = (await resolveConfig(file)) ?? {};
  return { file, text: await format(text, { ...options, filepath: file }) };
}

/** Each generated file with the text the document gives it. */
export async function generatedFiles(
  doc: OpenApiDocument = JSON.parse(readFileSync(DOCUMENT_FILE, "utf8")) as OpenApiDocument,
): Promise<Array<{ file: string; text: string }>> {
  return Promise.all([
    formatted(at("../../client/src/generated/api.ts"), clientTypes(doc)),
    formatted(at("../../webhooks/src/generated/events.ts"), eventTypes(doc)),
  ]);
}

/** The generated files whose committed text differs from what the document gives. */
export async function staleFiles(): Promise<string[]> {
  return (await generatedFiles())
    .filter(({ file, text }) => readFileSync(file, "utf8") !== text)
    .map(({ file }) => file);
}
