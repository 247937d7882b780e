/**
 * `npm run openapi`: composes every service's operation descriptors into the OpenAPI 3.1 document
 * and writes shared/openapi/openapi.json (checked in; the auth service serves it at /openapi.json).
 * `--check` writes nothing and exits 1 when the checked-in file differs from the code.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SCOPES } from "@svc/auth";
import { installationVersion } from "@svc/config";
import { REPO_ROOT, SERVICES } from "@svc/manifest";
import {
  buildOpenApiDocument,
  OPENAPI_JSON_PATH,
  PLATFORM_OPERATIONS,
  serializeDocument,
  type OpenApiDocument,
  type OperationSpec,
  type ServiceOpenApi,
} from "@svc/openapi";

/** Every service's part of the document, in the manifest's order (the services that have one). */
export async function serviceParts(): Promise<ReadonlyArray<{ service: string } & ServiceOpenApi>> {
  const parts = [];
  for (const service of SERVICES) {
    if (service.operations === null) continue;
    const file = join(REPO_ROOT, service.workspace, service.operations);
    const { OPENAPI } = (await import(pathToFileURL(file).href)) as { OPENAPI?: ServiceOpenApi };
    if (!OPENAPI) throw new Error(`${file} does not export OPENAPI`);
    parts.push({ service: service.name, ...OPENAPI });
  }
  return parts;
}

/** Every public operation, by the service that serves it; the platform routes first. */
export async function allOperations(): Promise<Record<string, ReadonlyArray<OperationSpec>>> {
  const parts = await serviceParts();
  return {
    platform: PLATFORM_OPERATIONS,
    ...Object.fromEntries(parts.map((part) => [part.service, part.operations])),
  };
}

const DESCRIPTION = [
  "The integration boundary in front of a recruitment and practice-management system (the *primary* system): a canonical read API over its data, application intake, a CRM mirror and signed webhooks.",
  "",
  "Every `/v1` endpoint except health and version needs a bearer token from `POST /oauth/token` (OAuth 2.0 client credentials) with the scope the operation names; answers use the envelope `{ success, data, meta }`, errors `{ success: false, error: { code, message, details? }, meta }`. Unknown or repeated query parameters are 422 VALIDATION_ERROR on every endpoint that needs a token.",
  "",
  "Production and the sandbox have the same contract, except what is marked `x-environments: [production]`: the CRM mirror, the submission endpoint, the `crm-mirror:write` scope and the `application.submitted` event exist in production only.",
].join("\n");

export async function generateOpenApiDocument(): Promise<OpenApiDocument> {
  const parts = await serviceParts();
  const descriptions = Object.assign({}, ...parts.map((part) => part.scopes ?? {})) as Record<
    string,
    string
  >;
  const scopes = Object.fromEntries(SCOPES.map((scope) => [scope, descriptions[scope] ?? ""]));
  return buildOpenApiDocument({
    version: installationVersion,
    title: "Integration service API",
    description: DESCRIPTION,
    tags: parts.flatMap((part) => part.tags),
    scopes,
    operations: [...PLATFORM_OPERATIONS, ...parts.flatMap((part) => part.operations)],
  });
}

async function main(args: string[]): Promise<void> {
  const generated = serializeDocument(await generateOpenApiDocument());
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
  await main(process.argv.slice(2));
