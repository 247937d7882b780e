/**
 * The checked-in OpenAPI documents (production's and the sandbox's) are the code's: each equals
 * what `npm run openapi` generates now, every route the services register in that environment is
 * in it and every documented operation is routed, its version is the installation's, and the
 * sandbox's is production's without exactly the production-only parts.
 */
import express from "express";
import { describe, expect, it } from "vitest";
import { createHttpApp } from "@svc/http";
import { SCOPES, scopesFor } from "@svc/auth";
import { installationVersion } from "@svc/config";
import {
  existsIn,
  readOpenApiDocument,
  readOpenApiJson,
  serializeDocument,
  type Environment,
  type OpenApiDocument,
  type OperationSpec,
} from "@svc/openapi";
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

/** Every public route each process registers in an environment. */
function routedBy(environment: Environment): Record<string, string[]> {
  const platform = createHttpApp({
    platform: { service: "x", version: installationVersion, environment },
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
        crmMirror: environment === "production" ? { store: unused, now: Date.now } : null,
      }),
    ),
    vacancies: registeredRoutes(vacancyRoutes({ verify: unused, reader: unused })),
    identity: registeredRoutes(
      identityRouter({
        environment,
        verify: unused,
        queries: unused,
        createApplication: unused,
        submitApplication: unused,
        idempotency: (_q, _s, next) => next(),
        timeZone: "Europe/Brussels",
      }),
    ),
    webhooks: registeredRoutes(
      webhooksRouter({
        service: unused,
        feed: unused,
        verify: unused,
        installation: { environment: "production", publicBaseUrl: "https://api.example.test" },
        portal: {
          sessions: unused,
          logger: silentLogger(),
          publicBaseUrl: "https://api.example.test",
          environment: "production",
          limits: {
            sessionsBurst: 1,
            sessionsPerMinute: 1,
            actionsPerMinute: 1,
            readsPerMinute: 1,
          },
        },
      }),
    ),
  };
}

const documented = (ops: ReadonlyArray<OperationSpec>, environment: Environment) =>
  ops
    .filter((o) => existsIn(o, environment))
    .map((o) => `${o.method.toUpperCase()} ${o.path}`)
    .sort();

const ALL_OPERATIONS = await allOperations();
const ENVIRONMENTS = ["production", "sandbox"] as const;

describe.each(ENVIRONMENTS)("the checked-in OpenAPI document of the %s", (environment) => {
  it("is exactly what the code generates (otherwise: run npm run openapi)", async () => {
    const generated = serializeDocument(await generateOpenApiDocument(environment));
    const checkedIn = readOpenApiJson(environment);
    // One readable line instead of a 270 kB diff; the first differing line says where.
    if (checkedIn !== generated) {
      const a = checkedIn.split("\n");
      const b = generated.split("\n");
      const line = a.findIndex((l, i) => l !== b[i]);
      expect.fail(
        `the ${environment} document differs from the code at line ${line + 1} (checked in: ${JSON.stringify(a[line])}, generated: ${JSON.stringify(b[line])}); run npm run openapi`,
      );
    }
  });

  it("carries the installation's version as info.version, and its environment", () => {
    const info = readOpenApiDocument(environment).info;
    expect(info.version).toBe(installationVersion);
    expect(info["x-environment"]).toBe(environment);
    expect(installationVersion).toMatch(/^0\.\d+\.\d+$/);
  });

  it.each(Object.keys(ALL_OPERATIONS))(
    "documents every route %s registers, and nothing it does not",
    (service) => {
      expect(routedBy(environment)[service]).toEqual(
        documented(ALL_OPERATIONS[service] ?? [], environment),
      );
    },
  );

  it("names the environment's scopes, each operation guarded by exactly one", () => {
    const document = JSON.parse(readOpenApiJson(environment)) as {
      paths: Record<string, Record<string, { security: Array<Record<string, string[]>> }>>;
      components: {
        securitySchemes: {
          oauth2: { flows: { clientCredentials: { scopes: Record<string, string> } } };
        };
      };
    };
    expect(
      Object.keys(document.components.securitySchemes.oauth2.flows.clientCredentials.scopes),
    ).toEqual([...scopesFor(environment)]);
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (method.startsWith("x-")) continue;
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
        for (const scope of scopes) expect(scopesFor(environment)).toContain(scope);
      }
    }
  });
});

type Json = Record<string, unknown>;
const isProductionOnly = (node: unknown) =>
  Array.isArray((node as Json | null)?.["x-environments"]) &&
  !((node as Json)["x-environments"] as string[]).includes("sandbox");

/** Every `$ref` under a node. */
function refsIn(node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) refsIn(item, into);
  else if (typeof node === "object" && node !== null)
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") into.add(value);
      else refsIn(value, into);
    }
  return into;
}

/**
 * Production's document without what is marked production-only: those operations (and paths left
 * without one), those webhooks, their event types wherever a value or a reference names them, the
 * tags and scopes no remaining operation uses, and the components nothing remaining refers to.
 */
function withoutProductionOnly(production: OpenApiDocument): OpenApiDocument {
  const doc = structuredClone(production);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) if (isProductionOnly(op)) delete item[method];
    if (Object.keys(item).every((key) => key.startsWith("x-"))) delete doc.paths[path];
  }
  const events = Object.keys(doc.webhooks).filter((type) =>
    isProductionOnly(doc.webhooks[type]?.post),
  );
  for (const type of events) delete doc.webhooks[type];
  const eventRefs = events.map((t) => `#/components/schemas/Event_${t.replace(/[.]/g, "_")}`);
  const prune = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(prune);
    if (typeof node !== "object" || node === null) return;
    const object = node as Json;
    if (Array.isArray(object.enum)) object.enum = object.enum.filter((v) => !events.includes(v));
    if (Array.isArray(object.oneOf))
      object.oneOf = object.oneOf.filter((v) => !eventRefs.includes((v as Json).$ref as string));
    Object.values(object).forEach(prune);
  };
  prune(doc);
  const oauth2 = (doc.components.securitySchemes as Json).oauth2 as {
    flows: { clientCredentials: { scopes: Record<string, string> } };
  };
  const used = new Set(
    Object.values(doc.paths).flatMap((item) =>
      Object.values(item).flatMap((op) =>
        ((op.security ?? []) as Array<Record<string, string[]>>).flatMap((s) => s.oauth2 ?? []),
      ),
    ),
  );
  const tags = new Set(
    [...Object.values(doc.paths), ...Object.values(doc.webhooks)].flatMap((item) =>
      Object.values(item).flatMap((op) => (op.tags ?? []) as string[]),
    ),
  );
  doc.tags = (doc.tags as Array<{ name: string }>).filter((tag) => tags.has(tag.name));
  const scopes = oauth2.flows.clientCredentials.scopes;
  for (const scope of Object.keys(scopes)) if (!used.has(scope)) delete scopes[scope];
  // Components referred to from what remains, transitively.
  const components = doc.components as Record<string, Record<string, unknown>>;
  const reachable = refsIn({ paths: doc.paths, webhooks: doc.webhooks });
  for (let size = 0; size !== reachable.size;) {
    size = reachable.size;
    for (const ref of [...reachable]) {
      const [, , kind, name] = ref.split("/");
      refsIn(components[kind as string]?.[name as string], reachable);
    }
  }
  for (const kind of ["schemas", "responses", "headers"])
    for (const name of Object.keys(components[kind] ?? {}))
      if (!reachable.has(`#/components/${kind}/${name}`)) delete components[kind]?.[name];
  return doc;
}

describe("the two environments' documents", () => {
  const production = readOpenApiDocument("production");
  const sandbox = readOpenApiDocument("sandbox");

  it("mark the production-only operations, scope and event in production's", () => {
    const productionOnly = Object.entries(production.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => isProductionOnly(op))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    // Derived from the descriptors: whatever an operation declares production-only is marked.
    const declared = Object.values(ALL_OPERATIONS)
      .flat()
      .filter((op) => !existsIn(op, "sandbox"))
      .map((op) => `${op.method.toUpperCase()} ${op.path}`);
    expect(productionOnly.sort()).toEqual(declared.sort());
    expect(productionOnly).toEqual(
      expect.arrayContaining([
        "DELETE /v1/crm-mirror/accounts/{crm_id}",
        "POST /v1/applications/{application_uuid}/submission",
        "POST /v1/crm-mirror/accounts:bulk",
        "PUT /v1/crm-mirror/accounts/{crm_id}",
      ]),
    );
    expect(
      Object.entries(production.webhooks)
        .filter(([, w]) => isProductionOnly(w.post))
        .map(([type]) => type),
    ).toEqual(["application.submitted"]);
    expect(SCOPES.filter((s) => !scopesFor("sandbox").includes(s))).toContain("crm-mirror:write");
  });

  it("differ exactly by the production-only parts (and the environment they name)", () => {
    const expected = withoutProductionOnly(production);
    expected.info = {
      ...expected.info,
      description: sandbox.info.description,
      "x-environment": "sandbox",
    };
    expect(sandbox).toEqual(expected);
  });

  it("the sandbox's names none of the production-only operations, scope or event", () => {
    const text = readOpenApiJson("sandbox");
    for (const absent of ["crm-mirror", "/submission", "application.submitted"])
      expect(text).not.toContain(absent);
  });
});
