/**
 * The checked-in OpenAPI document is the code's: it equals what `npm run openapi` generates now,
 * every route the services register is in it and every documented operation is routed, and its
 * version is the installation's.
 */
import express from "express";
import { describe, expect, it } from "vitest";
import { createHttpApp } from "@svc/http";
import { SCOPES } from "@svc/auth";
import { installationVersion } from "@svc/config";
import { readOpenApiJson, serializeDocument, type OperationSpec } from "@svc/openapi";
import { silentLogger } from "@svc/testing";
import { allOperations, generateOpenApiDocument } from "../../tools/openapi.ts";
import { createRouter as vacancyRoutes } from "../../services/vacancies/src/http/router.ts";
import { createRouter as practicesRouter } from "../../services/practices/src/http/router.ts";
import { createRouter as identityRouter } from "../../services/identity/src/http/router.ts";
import { createRouter as webhooksRouter } from "../../services/webhooks/src/http/router.ts";
import { tokenRoutes } from "../../services/auth/src/http/token-route.ts";
import { openApiRoutes } from "../../services/auth/src/http/openapi-route.ts";
import { referenceRoutes } from "../../services/auth/src/http/reference-route.ts";
import { registeredRoutes } from "./routes.ts";

// Building a router only wires handlers; none of these is called.
const unused = {} as never;

/**
 * Every public route each process registers (production: the CRM mirror and the submission route
 * exist).
 */
function routedBy(): Record<string, string[]> {
  const platform = createHttpApp({
    platform: { service: "x", version: installationVersion, environment: "production" },
    logger: silentLogger(),
    routes: express.Router(),
  });
  return {
    platform: registeredRoutes(platform),
    auth: registeredRoutes(
      express
        .Router()
        .use(
          tokenRoutes({ service: unused, environmentScopes: new Set(), logger: silentLogger() }),
          openApiRoutes("{}"),
          referenceRoutes(),
        ),
    ),
    practices: registeredRoutes(
      practicesRouter({
        verify: unused,
        reader: unused,
        crmMirror: { store: unused, now: Date.now },
      }),
    ),
    vacancies: registeredRoutes(vacancyRoutes({ verify: unused, reader: unused })),
    identity: registeredRoutes(
      identityRouter({
        environment: "production",
        verify: unused,
        queries: unused,
        createApplication: unused,
        submitApplication: unused,
        idempotency: (_q, _s, next) => next(),
        timeZone: "Europe/Brussels",
      }),
    ),
    webhooks: registeredRoutes(webhooksRouter({ service: unused, feed: unused, verify: unused })),
  };
}

const documented = (ops: ReadonlyArray<OperationSpec>) =>
  ops.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort();

const ALL_OPERATIONS = await allOperations();

describe("the checked-in OpenAPI document", () => {
  it("is exactly what the code generates (otherwise: run npm run openapi)", async () => {
    const generated = serializeDocument(await generateOpenApiDocument());
    const checkedIn = readOpenApiJson();
    // One readable line instead of a 270 kB diff; the first differing line says where.
    if (checkedIn !== generated) {
      const a = checkedIn.split("\n");
      const b = generated.split("\n");
      const line = a.findIndex((l, i) => l !== b[i]);
      expect.fail(
        `shared/openapi/openapi.json differs from the code at line ${line + 1} (checked in: ${JSON.stringify(a[line])}, generated: ${JSON.stringify(b[line])}); run npm run openapi`,
      );
    }
  });

  it("carries the installation's version as info.version", () => {
    expect((JSON.parse(readOpenApiJson()) as { info: { version: string } }).info.version).toBe(
      installationVersion,
    );
    expect(installationVersion).toMatch(/^0\.\d+\.\d+$/);
  });

  it.each(Object.keys(ALL_OPERATIONS))(
    "documents every route %s registers, and nothing it does not",
    (service) => {
      expect(routedBy()[service]).toEqual(documented(ALL_OPERATIONS[service] ?? []));
    },
  );

  it("names only the contract's scopes, each operation guarded by exactly one", () => {
    const document = JSON.parse(readOpenApiJson()) as {
      paths: Record<string, Record<string, { security: Array<Record<string, string[]>> }>>;
      components: {
        securitySchemes: {
          oauth2: { flows: { clientCredentials: { scopes: Record<string, string> } } };
        };
      };
    };
    expect(
      Object.keys(document.components.securitySchemes.oauth2.flows.clientCredentials.scopes),
    ).toEqual([...SCOPES]);
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const scopes = op.security.flatMap((s) => s.oauth2 ?? []);
        const isPublic = [
          "/health",
          "/v1/health",
          "/version",
          "/v1/version",
          "/openapi.json",
          "/reference",
          "/reference/{file}",
        ].includes(path);
        if (isPublic) expect(op.security, `${method} ${path}`).toEqual([]);
        else if (path !== "/oauth/token") expect(scopes.length, `${method} ${path}`).toBe(1);
        for (const scope of scopes) expect(SCOPES).toContain(scope);
      }
    }
  });

  it("marks the production-only operations and event", () => {
    const document = JSON.parse(readOpenApiJson()) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
      webhooks: Record<string, { post: Record<string, unknown> }>;
    };
    const productionOnly = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => op["x-environments"])
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(productionOnly.sort()).toEqual([
      "DELETE /v1/crm-mirror/accounts/{crm_id}",
      "POST /v1/applications/{application_uuid}/submission",
      "POST /v1/crm-mirror/accounts:bulk",
      "PUT /v1/crm-mirror/accounts/{crm_id}",
    ]);
    expect(
      Object.entries(document.webhooks)
        .filter(([, w]) => w.post["x-environments"])
        .map(([type]) => type),
    ).toEqual(["application.submitted"]);
  });
});
