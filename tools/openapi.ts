/**
 * `npm run openapi`: composes every service's operation descriptors into the OpenAPI 3.1 document
 * and writes shared/openapi/openapi.json (checked in; the auth service serves it at /openapi.json).
 * `--check` writes nothing and exits 1 when the checked-in file differs from the code.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SCOPES } from "@svc/auth";
import { installationVersion } from "@svc/config";
import {
  buildOpenApiDocument,
  OPENAPI_JSON_PATH,
  PLATFORM_OPERATIONS,
  serializeDocument,
  type OpenApiDocument,
  type OperationSpec,
} from "@svc/openapi";
import {
  AUTH_OPERATIONS,
  AUTH_TAGS,
  SCOPE_DESCRIPTIONS,
} from "../services/auth/src/http/operations.ts";
import { IDENTITY_OPERATIONS, IDENTITY_TAGS } from "../services/identity/src/http/operations.ts";
import {
  CRM_MIRROR_OPERATIONS,
  PRACTICE_OPERATIONS,
  PRACTICE_TAGS,
} from "../services/practices/src/http/operations.ts";
import { VACANCY_OPERATIONS, VACANCY_TAGS } from "../services/vacancies/src/http/operations.ts";
import { WEBHOOK_OPERATIONS, WEBHOOK_TAGS } from "../services/webhooks/src/http/operations.ts";

/** Every public operation, by the service that serves it (the route table's order). */
export const ALL_OPERATIONS: Readonly<Record<string, ReadonlyArray<OperationSpec>>> = {
  platform: PLATFORM_OPERATIONS,
  auth: AUTH_OPERATIONS,
  practices: [...PRACTICE_OPERATIONS, ...CRM_MIRROR_OPERATIONS],
  vacancies: VACANCY_OPERATIONS,
  identity: IDENTITY_OPERATIONS,
  webhooks: WEBHOOK_OPERATIONS,
};

const DESCRIPTION = [
  "The integration boundary in front of a recruitment and practice-management system (the *primary* system): a canonical read API over its data, application intake, a CRM mirror and signed webhooks.",
  "",
  "Every `/v1` endpoint except health and version needs a bearer token from `POST /oauth/token` (OAuth 2.0 client credentials) with the scope the operation names; answers use the envelope `{ success, data, meta }`, errors `{ success: false, error: { code, message, details? }, meta }`. Unknown or repeated query parameters are 422 VALIDATION_ERROR on every endpoint that needs a token.",
  "",
  "Production and the sandbox have the same contract, except what is marked `x-environments: [production]`: the CRM mirror, the submission endpoint, the `crm-mirror:write` scope and the `application.submitted` event exist in production only.",
].join("\n");

export function generateOpenApiDocument(): OpenApiDocument {
  const scopes = Object.fromEntries(SCOPES.map((scope) => [scope, SCOPE_DESCRIPTIONS[scope]]));
  return buildOpenApiDocument({
    version: installationVersion,
    title: "Integration service API",
    description: DESCRIPTION,
    tags: [...AUTH_TAGS, ...PRACTICE_TAGS, ...VACANCY_TAGS, ...IDENTITY_TAGS, ...WEBHOOK_TAGS],
    scopes,
    operations: Object.values(ALL_OPERATIONS).flat(),
  });
}

function main(args: string[]): void {
  const generated = serializeDocument(generateOpenApiDocument());
  if (args.includes("--check")) {
    if (readFileSync(OPENAPI_JSON_PATH, "utf8") !== generated) {
      console.error(`${OPENAPI_JSON_PATH} differs from the code; run npm run openapi`);
      process.exit(1);
    }
    console.log("openapi.json is up to date");
    return;
  }
  writeFileSync(OPENAPI_JSON_PATH, generated);
  console.log(`wrote ${OPENAPI_JSON_PATH} (${generated.length} bytes)`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main(process.argv.slice(2));
