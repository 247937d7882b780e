/**
 * Every status the document declares, operation by operation, against what the services answer:
 * a table derived from production's document. The statuses every operation of its kind declares
 * (`baseErrors`), each path's other methods (405) and the production-only routes' absence in the
 * sandbox are driven here for every operation, through the real listener (its timeouts and
 * protocol answers), the real apps' body parser, the real routers and scope guards, a real token
 * verifier, and the real gateway for the public operations' 503; each answer is checked against
 * the document. The routers' dependencies are absent (a call fails as an unexpected error would:
 * 500); the operation-specific statuses (2xx, 404 of a missing resource, 409, 422 of a body,
 * 503 LEGACY_SOURCE_UNAVAILABLE, the token endpoint's RFC 6749 answers, 500 on an operation that
 * refuses an empty body first) are operation-statuses.test.ts's table, against the real stores.
 */
import { randomUUID } from "node:crypto";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenVerifier, scopesFor, type TokenVerifier } from "@svc/auth";
import { installationVersion } from "@svc/config";
import { createHttpApp, listen, type RunningServer } from "@svc/http";
import {
  baseErrors,
  readOpenApiDocument,
  type Environment,
  type OpenApiDocument,
  type OperationSpec,
} from "@svc/openapi";
import {
  contractValidator,
  createTestIssuer,
  silentLogger,
  TEST_AUDIENCE,
  TEST_ISSUER,
  type TestIssuer,
} from "@svc/testing";
import { allOperations } from "../../tools/openapi.ts";
import { createRouter as vacanciesRouter } from "../../services/vacancies/src/http/router.ts";
import { createRouter as practicesRouter } from "../../services/practices/src/http/router.ts";
import { createRouter as identityRouter } from "../../services/identity/src/http/router.ts";
import { createRouter as webhooksRouter } from "../../services/webhooks/src/http/router.ts";
import { tokenRoutes } from "../../services/auth/src/http/token-route.ts";
import { openApiRoutes } from "../../services/auth/src/http/openapi-route.ts";
import { referenceRoutes } from "../../services/auth/src/http/reference-route.ts";
import { createApp as createGateway } from "../../services/gateway/src/app.ts";
import { encodeRequest, sendRaw, type RawResponse } from "../support/raw-http.ts";

/** A dependency that is not there: any use of it fails as an unexpected error does. */
const absent: never = new Proxy(() => undefined, {
  get: (_target, key) => (typeof key === "symbol" || key === "then" ? undefined : absent),
  apply: () => {
    throw new Error("no dependency in this test");
  },
}) as never;

const LIMITS = { headersTimeoutMs: 1_000, requestTimeoutMs: 1_000, maxConnections: 1_000 };

/** Every service's routers in one app per environment, as the services compose them. */
function app(environment: Environment, verify: TokenVerifier) {
  const routes = express.Router().use(
    tokenRoutes({ service: absent, environmentScopes: new Set(), logger: silentLogger() }),
    openApiRoutes("{}"),
    referenceRoutes(),
    practicesRouter({
      verify,
      reader: absent,
      crmMirror: environment === "production" ? { store: absent, now: Date.now } : null,
    }),
    vacanciesRouter({ verify, reader: absent }),
    identityRouter({
      environment,
      verify,
      queries: absent,
      createApplication: absent,
      submitApplication: absent,
      idempotency: absent,
      timeZone: "Europe/Brussels",
    }),
    webhooksRouter({
      service: absent,
      feed: absent,
      verify,
      installation: { environment, publicBaseUrl: "https://api.example.test" },
      portal: {
        sessions: absent,
        logger: silentLogger(),
        publicBaseUrl: "https://api.example.test",
        environment,
        limits: { sessionsBurst: 1, sessionsPerMinute: 1, actionsPerMinute: 1, readsPerMinute: 1 },
      },
    }),
  );
  return createHttpApp({
    platform: { service: "status-table", version: installationVersion, environment },
    logger: silentLogger(),
    routes,
  });
}

let issuer: TestIssuer;
const servers: RunningServer[] = [];
let production: number;
let sandbox: number;
/** Production's routes behind a verifier whose revocation list is not loaded (fails closed). */
let unverifiable: number;
/** The gateway with every service behind it unreachable. */
let gateway: number;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  issuer = await createTestIssuer();
  const options = { keys: issuer.keys, issuer: TEST_ISSUER, audience: TEST_AUDIENCE };
  const verify = createTokenVerifier(options);
  const closed = createTokenVerifier({ ...options, revocation: { status: () => "unknown" } });
  const serve = async (handler: Parameters<typeof listen>[0]) => {
    const server = await listen(handler, 0, "127.0.0.1", LIMITS);
    servers.push(server);
    return server.port;
  };
  production = await serve(app("production", verify));
  sandbox = await serve(app("sandbox", verify));
  unverifiable = await serve(app("production", closed));
  // A port nothing listens on: the one a closed listener had.
  const gone = await listen(() => undefined, 0, "127.0.0.1");
  await gone.close();
  const upstreams = Object.fromEntries(
    ["auth", "practices", "vacancies", "identity", "webhooks"].map((s) => [
      s,
      [`http://127.0.0.1:${gone.port}`],
    ]),
  );
  gateway = await serve(
    createGateway({ config: { GATEWAY_UPSTREAMS: upstreams } as never, logger: silentLogger() }),
  );
  for (const scope of scopesFor("production"))
    tokens[scope] = await issuer.mint({ scope, clientId: "status-table" });
  tokens[""] = await issuer.mint({ scope: "", clientId: "status-table" });
});
afterAll(() => Promise.all(servers.map((s) => s.close(100))));

const DOCUMENT: OpenApiDocument = readOpenApiDocument("production");
const OPERATIONS: OperationSpec[] = Object.values(await allOperations()).flat();

/** A path of the operation with a value its parameter's schema accepts. */
function target(op: OperationSpec, query = ""): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const schema = op.pathParams?.[name]?.schema as { format?: string; enum?: string[] };
    if (schema?.format === "uuid") return randomUUID();
    if (schema?.enum) return schema.enum[0] as string;
    return "status-table-1";
  });
  return `${path}${query}`;
}

interface Sent {
  method?: string;
  path: string;
  headers?: Array<[string, string]>;
  body?: Buffer;
  /** Headers only: the body announced by Content-Length never comes. */
  stall?: boolean;
}

/** One request on its own connection; the answer, checked against the document. */
async function send(port: number, sent: Sent & { method: string }): Promise<RawResponse> {
  const request = { method: sent.method, target: sent.path, headers: sent.headers ?? [] };
  const bytes = sent.stall
    ? encodeRequest(request, { host: "localhost" })
    : encodeRequest(
        { ...request, ...(sent.body ? { body: sent.body } : {}) },
        {
          host: "localhost",
        },
      );
  const outcome = await sendRaw(port, bytes, { method: sent.method, timeoutMs: 10_000 });
  if (outcome.kind !== "response")
    throw new Error(`${sent.method} ${sent.path}: no answer (${outcome.kind})`);
  const { response } = outcome;
  const problems = contractValidator().problems({
    method: sent.method,
    path: sent.path,
    status: response.status,
    headers: new Headers(response.headers),
    body: response.body.toString("utf8"),
  });
  if (problems && problems.length > 0) throw new Error(problems.join("\n"));
  return response;
}

const codeOf = (response: RawResponse): unknown =>
  (JSON.parse(response.body.toString("utf8") || "{}") as { error?: { code?: unknown } }).error
    ?.code;

const bearer = (scope: string): [string, string] => ["Authorization", `Bearer ${tokens[scope]}`];
const scopeOf = (op: OperationSpec) => ("scope" in op.auth ? op.auth.scope : undefined);
const json = (body: string): Pick<Sent, "headers" | "body"> => ({
  headers: [["Content-Type", "application/json"]],
  body: Buffer.from(body),
});

/**
 * How each status every operation of its kind declares is driven: the request, and where to send
 * it. One row per status of `baseErrors`; the table below checks there is one for each.
 */
const DRIVERS: Record<number, (op: OperationSpec) => { port: () => number; sent: Sent }> = {
  // A JSON body that does not parse, read before any route.
  400: (op) => ({ port: () => production, sent: { path: target(op), ...json("{") } }),
  401: (op) => ({ port: () => production, sent: { path: target(op) } }),
  403: (op) => ({ port: () => production, sent: { path: target(op), headers: [bearer("")] } }),
  // Headers in, the announced body never: cut after the request timeout.
  408: (op) => ({
    port: () => production,
    sent: {
      path: target(op),
      headers: [
        ["Content-Type", "application/json"],
        ["Content-Length", "10"],
      ],
      stall: true,
    },
  }),
  // More than the apps' body limit here (the default, 256 KiB).
  413: (op) => ({
    port: () => production,
    sent: { path: target(op), ...json(`"${"a".repeat(300 * 1024)}"`) },
  }),
  415: (op) => ({
    port: () => production,
    sent: {
      path: target(op),
      headers: [["Content-Type", "application/json; charset=latin1"]],
      body: Buffer.from("{}"),
    },
  }),
  431: (op) => ({
    port: () => production,
    sent: { path: target(op), headers: [["X-Filler", "a".repeat(20_000)]] },
  }),
  // Guarded: a valid token with the scope, no dependency behind the handler. Public: only an
  // unexpected error (a fault), which no request can cause.
  500: (op) => ({
    port: () => production,
    sent: {
      path: target(op),
      ...(op.requestBody ? json("{}") : {}),
      headers: [bearer(scopeOf(op) ?? ""), ...(op.requestBody ? json("{}").headers! : [])],
    },
  }),
  // Guarded: the revocation list cannot be trusted (fails closed). Public: through the gateway,
  // the service behind it unreachable.
  503: (op) =>
    scopeOf(op) === undefined
      ? { port: () => gateway, sent: { path: target(op) } }
      : { port: () => unverifiable, sent: { path: target(op), headers: [bearer(scopeOf(op)!)] } },
};

/** Guarded operations that reach no dependency: the event catalogue is built at start. */
const NO_DEPENDENCY = new Set(["listWebhookEventTypes"]);

const declared = (op: OperationSpec) =>
  Object.keys(
    (DOCUMENT.paths[op.path]?.[op.method] as { responses: Record<string, unknown> }).responses,
  ).map(Number);

/**
 * What the servers answer whatever the operation does, by kind: the listener's statuses on every
 * operation; the apps' body parser, unexpected errors and the gateway's 503 on every operation of
 * the apps (not the token endpoint, which answers those in RFC 6749 form itself); the guard's on
 * every guarded one.
 */
function answeredByKind(op: OperationSpec): number[] {
  if ("clientCredentials" in op.auth) return [408, 431];
  const app = [400, 408, 413, 415, 431, 500, 503];
  return "public" in op.auth ? app : [...app, 401, 403].sort();
}

const rows = OPERATIONS.flatMap((op) =>
  answeredByKind(op).map((status) => ({
    op,
    status,
    name: `${op.method.toUpperCase()} ${op.path} → ${status}`,
  })),
);

describe.concurrent("the status table (production's document)", () => {
  it("declares what every operation of a kind answers, on every operation", () => {
    for (const op of OPERATIONS) {
      const name = `${op.method.toUpperCase()} ${op.path}`;
      expect(Object.keys(baseErrors(op.auth)).map(Number).sort(), name).toEqual(answeredByKind(op));
      for (const status of answeredByKind(op)) expect(declared(op), name).toContain(status);
    }
  });

  it.each(rows.map((r) => [r.name, r] as const))("%s", async (_name, { op, status }) => {
    const codes = baseErrors(op.auth)[status] ?? [];
    if (status === 500 && "public" in op.auth) {
      // A public operation reaches no dependency: only a fault (a bug) can cause its 500
      // (operation-statuses.test.ts shows it answering with every store gone).
      expect(codes).toEqual(["INTERNAL_ERROR"]);
      return;
    }
    const driver = DRIVERS[status]!(op);
    const response = await send(driver.port(), {
      method: op.method.toUpperCase(),
      ...driver.sent,
    });
    if (status === 500 && NO_DEPENDENCY.has(op.operationId)) {
      // Answered from what the process holds since start: as on a public operation, only a fault
      // can cause its 500.
      expect(response.status).toBe(200);
      expect(codes).toEqual(["INTERNAL_ERROR"]);
      return;
    }
    if (status === 500 && response.status === 422) {
      // The handler refused the (empty) input before reaching a dependency: the 500 needs a
      // valid body, driven in operation-statuses.test.ts.
      expect(op.requestBody ?? op.headers, `${op.operationId}: 422 without a body`).toBeDefined();
      return;
    }
    expect(response.status).toBe(status);
    expect(codes).toContain(codeOf(response));
  });
});

describe.concurrent("other methods (each path's x-other-methods)", () => {
  const byPath = new Map<string, OperationSpec[]>();
  for (const op of OPERATIONS) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
  const METHODS = ["GET", "PUT", "POST", "PATCH", "DELETE"];

  it.each([...byPath.keys()])("%s", async (path) => {
    const ops = byPath.get(path) ?? [];
    const taken = ops.map((op) => op.method.toUpperCase());
    const other = METHODS.find((m) => !taken.includes(m)) as string;
    const response = await send(production, {
      method: other,
      path: target(ops[0] as OperationSpec),
    });
    expect(response.status).toBe(405);
    const allowed = (response.headers.allow ?? "").split(", ");
    for (const method of taken) expect(allowed).toContain(method);
  });
});

describe.concurrent("production-only operations in the sandbox", () => {
  const productionOnly = OPERATIONS.filter((op) => op.environments?.includes("sandbox") === false);

  it("are absent from the sandbox's document", () => {
    const doc = readOpenApiDocument("sandbox");
    expect(productionOnly.length).toBeGreaterThan(0);
    for (const op of productionOnly) expect(doc.paths[op.path]?.[op.method]).toBeUndefined();
  });

  it.each(productionOnly.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))(
    "%s is 404 NOT_FOUND there",
    async (_name, op) => {
      const response = await send(sandbox, {
        method: op.method.toUpperCase(),
        path: target(op),
        headers: [bearer(scopeOf(op) ?? "")],
      });
      expect(response.status).toBe(404);
      expect(codeOf(response)).toBe("NOT_FOUND");
    },
  );
});

describe.concurrent("unknown query parameters", () => {
  const guarded = OPERATIONS.filter((op) => scopeOf(op) !== undefined);

  it.each(guarded.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))(
    "%s: 422 VALIDATION_ERROR, declared",
    async (_name, op) => {
      expect(declared(op)).toContain(422);
      const response = await send(production, {
        method: op.method.toUpperCase(),
        path: target(op, "?status_table_unknown=1"),
        headers: [bearer(scopeOf(op)!), ["Content-Type", "application/json"]],
        body: Buffer.from("{}"),
      });
      expect(response.status).toBe(422);
      expect(codeOf(response)).toBe("VALIDATION_ERROR");
    },
  );
});

describe.concurrent("an HTTP/1.1 request without Host", () => {
  const request = (target: string) =>
    Buffer.from(`POST ${target} HTTP/1.1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  const answer = async (port: number, target: string) => {
    const outcome = await sendRaw(port, request(target), { method: "POST", timeoutMs: 10_000 });
    if (outcome.kind !== "response") throw new Error(`${target}: no answer (${outcome.kind})`);
    const { response } = outcome;
    const problems = contractValidator().problems({
      method: "POST",
      path: target,
      status: response.status,
      headers: new Headers(response.headers),
      body: response.body.toString("utf8"),
    });
    expect(problems ?? []).toEqual([]);
    return { ...response, json: JSON.parse(response.body.toString("utf8")) as unknown };
  };

  it.each([
    ["the auth app's listener", () => production],
    ["the gateway", () => gateway],
  ])("is 400 invalid_request in RFC 6749 form at the token endpoint (%s)", async (_at, port) => {
    const response = await answer(port(), "/oauth/token");
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      error: "invalid_request",
      error_description: "the Host header is required",
    });
    expect(response.headers["cache-control"]).toBe("no-store");
  });

  it("is 400 MALFORMED_REQUEST in the envelope elsewhere", async () => {
    const response = await answer(production, "/v1/applications");
    expect(response.status).toBe(400);
    expect(codeOf(response)).toBe("MALFORMED_REQUEST");
  });
});
