/**
 * `npm run openapi`: composes every service's operation descriptors into the OpenAPI 3.1 document
 * of each environment and writes shared/openapi/openapi.json (production, the complete one) and
 * openapi.sandbox.json (checked in; the auth service serves its environment's at /openapi.json).
 * `--check` writes nothing and exits 1 when a checked-in file differs from the code.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { scopesFor } from "@svc/auth";
import { installationVersion } from "@svc/config";
import { REPO_ROOT, SERVICES } from "@svc/manifest";
import {
  buildOpenApiDocument,
  OPENAPI_JSON_PATHS,
  PLATFORM_OPERATIONS,
  type Environment,
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

const ENVIRONMENTS: ReadonlyArray<Environment> = ["production", "sandbox"];

const ENVIRONMENT_NOTE: Record<Environment, string> = {
  production:
    "This is production's document. What is marked `x-environments: [production]` exists in production only: the sandbox's document (its `/openapi.json`) leaves those operations out, with their scopes and event types.",
  sandbox:
    "This is the sandbox's document: the sandbox has exactly these operations, scopes and event types.",
};

function description(environment: Environment): string {
  return [
    "The integration boundary in front of a recruitment and practice-management system (the *primary* system): a canonical read API over its data, application intake and signed webhooks.",
    "",
    "Every `/v1` endpoint except health and version needs a bearer token from `POST /oauth/token` (OAuth 2.0 client credentials) with the scope the operation names; answers use the envelope `{ success, data, meta }`, errors `{ success: false, error: { code, message, details? }, meta }`. Unknown or repeated query parameters are 422 VALIDATION_ERROR on every endpoint that needs a token. A method a path does not take is answered as its path item's `x-other-methods` says (405 with `Allow`).",
    "",
    ENVIRONMENT_NOTE[environment],
  ].join("\n");
}

export async function generateOpenApiDocument(
  environment: Environment = "production",
): Promise<OpenApiDocument> {
  const parts = await serviceParts();
  const descriptions = Object.assign({}, ...parts.map((part) => part.scopes ?? {})) as Record<
    string,
    string
  >;
  const scopes = Object.fromEntries(
    scopesFor(environment).map((scope) => [scope, descriptions[scope] ?? ""]),
  );
  return buildOpenApiDocument({
    environment,
    version: installationVersion,
    title: "Integration service API",
    description: description(environment),
    tags: parts.flatMap((part) => part.tags),
    scopes,
    operations: [...PLATFORM_OPERATIONS, ...parts.flatMap((part) => part.operations)],
  });
}

async function main(args: string[]): Promise<void> {
  let stale = false;
  for (const environment of ENVIRONMENTS) {
    const file = OPENAPI_JSON_PATHS[environment];
    const name = relative(REPO_ROOT, file);
    const generated = serializeDocument(await generateOpenApiDocument(environment));
    if (!args.includes("--check")) {
      writeFileSync(file, generated);
      console.log(`wrote ${name} (${generated.length} bytes)`);
    } else if (readFileSync(file, "utf8") !== generated) {
      console.error(`${name} differs from the code; run npm run openapi`);
      stale = true;
    } else console.log(`${name} is up to date`);
  }
  if (stale) process.exit(1);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await main(process.argv.slice(2));
