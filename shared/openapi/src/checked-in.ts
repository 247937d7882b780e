import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { OpenApiDocument } from "./document.ts";
import type { Environment } from "./operation.ts";

/**
 * The checked-in documents, one per environment (`npm run openapi` writes both; a test fails when
 * either differs from the code). Production's is the complete one: the sandbox's leaves out what
 * exists in production only.
 */
export const OPENAPI_JSON_PATHS: Readonly<Record<Environment, string>> = {
  production: fileURLToPath(new URL("../openapi.json", import.meta.url)),
  sandbox: fileURLToPath(new URL("../openapi.sandbox.json", import.meta.url)),
};

/** Production's document, the complete one. */
export const OPENAPI_JSON_PATH = OPENAPI_JSON_PATHS.production;

/** The exact bytes of an environment's checked-in document, served as they are at GET /openapi.json. */
export function readOpenApiJson(environment: Environment = "production"): string {
  return readFileSync(OPENAPI_JSON_PATHS[environment], "utf8");
}

export function readOpenApiDocument(environment: Environment = "production"): OpenApiDocument {
  return JSON.parse(readOpenApiJson(environment)) as OpenApiDocument;
}
