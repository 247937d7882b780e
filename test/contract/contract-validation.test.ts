/**
 * The contract validation every suite runs under (test/support/contract-setup.ts) catches a
 * response that does not match the document: proven with a tiny server that answers documented
 * paths with wrong shapes, statuses and headers, fetched through the same wrapped fetch.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEvent } from "@svc/events";
import { installFetchContractValidation, validateWebhookPayload } from "@svc/testing";

const contract = installFetchContractValidation();

type Reply = { status: number; headers?: Record<string, string>; body: unknown };
let reply: Reply;
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(reply.status, {
      "content-type": "application/json; charset=utf-8",
      ...reply.headers,
    });
    res.end(typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const requestId = randomUUID();
const withId = { "x-request-id": requestId };
const meta = { request_id: requestId, api_version: "v1" };

/**
 * Fetches through the wrapped fetch, reads the body as a test would, and takes what the validation
 * found.
 */
async function violationsOf(path: string, answer: Reply, init: RequestInit = {}): Promise<string> {
  reply = answer;
  await (await fetch(`${base}${path}`, init)).text();
  return (await contract.takeViolations()).join("\n");
}

describe("contract validation of responses", () => {
  it("accepts a response that matches the document", async () => {
    const body = {
      success: true,
      data: { api_version: "v1", build: "0.1.0", php: process.version, environment: "sandbox" },
      meta,
    };
    expect(await violationsOf("/v1/version", { status: 200, headers: withId, body })).toBe("");
  });

  it("reports a body of the wrong shape at a documented path, naming path, status and the field", async () => {
    const found = await violationsOf(`/v1/vacancies/${randomUUID()}`, {
      status: 200,
      headers: withId,
      body: { success: true, data: { uuid: 42 }, meta },
    });
    expect(found).toContain(`GET /v1/vacancies/`);
    expect(found).toContain("→ 200");
    expect(found).toMatch(/\/data must have required property 'title'/);
  });

  it("reports a value of the wrong type or outside its enum", async () => {
    const body = {
      success: true,
      data: { api_version: "v1", build: 42, php: process.version, environment: "staging" },
      meta,
    };
    const found = await violationsOf("/version", { status: 200, headers: withId, body });
    expect(found).toMatch(/\/data\/build must be string/);
    expect(found).toMatch(/\/data\/environment must be equal to one of the allowed values/);
  });

  it("reports a status the operation does not document", async () => {
    const found = await violationsOf("/v1/practices", {
      status: 418,
      headers: withId,
      body: { success: false, error: { code: "NOT_FOUND", message: "x" }, meta },
    });
    expect(found).toContain("status 418 is not documented for GET /v1/practices");
  });

  it("reports an error code the status does not document", async () => {
    const found = await violationsOf("/v1/candidates", {
      status: 401,
      headers: { ...withId, "www-authenticate": 'Bearer realm="x"' },
      body: { success: false, error: { code: "NOT_FOUND", message: "x" }, meta },
    });
    expect(found).toMatch(/\/error\/code must be equal to one of the allowed values/);
  });

  it("reports a missing required header", async () => {
    const found = await violationsOf("/v1/candidates", {
      status: 401,
      headers: withId,
      body: { success: false, error: { code: "UNAUTHENTICATED", message: "x" }, meta },
    });
    expect(found).toContain("the required header WWW-Authenticate is missing");
  });

  it("reports an undocumented media type and a body that is not JSON", async () => {
    expect(
      await violationsOf("/health", {
        status: 200,
        headers: { ...withId, "content-type": "text/plain" },
        body: "ok",
      }),
    ).toContain("Content-Type text/plain is not documented");
    expect(await violationsOf("/health", { status: 200, headers: withId, body: "{" })).toContain(
      "the body is not JSON",
    );
  });

  it("checks an error from an undocumented /v1 path against the error envelope, and leaves other answers alone", async () => {
    expect(
      await violationsOf("/v1/no-such-thing", {
        status: 404,
        headers: withId,
        body: { error: "nope" },
      }),
    ).toMatch(/must have required property 'success'/);
    expect(await violationsOf("/v1/no-such-thing", { status: 200, body: { anything: true } })).toBe(
      "",
    );
    expect(await violationsOf("/elsewhere", { status: 500, body: "whatever" })).toBe("");
  });

  it("accepts what either environment's document allows: the sandbox's 404 on a production-only route", async () => {
    const notFound = { success: false, error: { code: "NOT_FOUND", message: "x" }, meta };
    expect(
      await violationsOf(
        "/v1/crm-mirror/accounts/acc-1",
        { status: 404, headers: withId, body: notFound },
        { method: "DELETE" },
      ),
    ).toBe("");
    // Neither document allows a 404 on a route both have that never answers it.
    expect(
      await violationsOf("/v1/vacancies", { status: 404, headers: withId, body: notFound }),
    ).toMatch(/status 404 is not documented for GET \/v1\/vacancies/);
  });

  it("checks a wrong method on a documented path against the path's x-other-methods (the OAuth body at /oauth/token)", async () => {
    const notAllowed = {
      success: false,
      error: { code: "METHOD_NOT_ALLOWED", message: "x" },
      meta,
    };
    expect(
      await violationsOf(
        "/v1/vacancies",
        { status: 405, headers: { ...withId, allow: "GET, HEAD" }, body: notAllowed },
        { method: "DELETE" },
      ),
    ).toBe("");
    expect(
      await violationsOf(
        "/v1/vacancies",
        { status: 405, headers: withId, body: notAllowed },
        { method: "DELETE" },
      ),
    ).toMatch(/the required header Allow is missing/);
    expect(
      await violationsOf(
        "/v1/vacancies",
        {
          status: 405,
          headers: { ...withId, allow: "GET" },
          body: { ...notAllowed, error: { code: "NOT_FOUND", message: "x" } },
        },
        { method: "DELETE" },
      ),
    ).toMatch(/must be equal to one of the allowed values/);
    expect(
      await violationsOf(
        "/oauth/token",
        { status: 405, body: { success: false } },
        { method: "GET" },
      ),
    ).toMatch(/must have required property 'error'/);
  });
});

describe("validateWebhookPayload", () => {
  it("accepts the payload the producers build", () => {
    const event = buildEvent({
      type: "vacancy.updated",
      entityId: randomUUID(),
      publicBaseUrl: "https://api.example.test",
    });
    expect(() => validateWebhookPayload("vacancy.updated", event)).not.toThrow();
  });

  it("rejects a payload whose entity type does not belong to its event, or with a field too many", () => {
    const event = buildEvent({
      type: "practice.created",
      entityId: "ACC/1",
      publicBaseUrl: "https://api.example.test",
    });
    expect(() =>
      validateWebhookPayload("practice.created", {
        ...event,
        entity: { type: "vacancy", id: "ACC/1" },
      }),
    ).toThrow(/\/entity\/type must be equal to constant/);
    expect(() => validateWebhookPayload("practice.created", { ...event, extra: 1 })).toThrow(
      /must NOT have additional properties/,
    );
    expect(() => validateWebhookPayload("no.such", event)).toThrow(/not an event type/);
  });
});
