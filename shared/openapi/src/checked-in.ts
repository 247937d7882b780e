import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { OpenApiDocument } from "./document.ts";

/**
 * The checked-in document (`npm run openapi` writes it; a test fails when it differs from the
 * code).
 */
export const OPENAPI_JSON_PATH = fileURLToPath(new URL("../openapi.json", import.meta.url));

/** The exact bytes of the checked-in document, served as they are at GET /openapi.json. */
export function readOpenApiJson(): string {
  return readFileSync(OPENAPI_JSON_PATH, "utf8");
}

export function readOpenApiDocument(): OpenApiDocument {
  return JSON.parse(readOpenApiJson()) as OpenApiDocument;
}
