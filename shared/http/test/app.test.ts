import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchJson, silentLogger, startApp, type StartedApp } from "@svc/testing";
import { NotFoundError, SourceUnavailableError } from "@svc/errors";
import { createHttpApp, parseQuery, q, requireJson, sendData, sendPage } from "../src/index.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function demoRoutes() {
  const router = express.Router();
  router.get("/v1/things", (req, res) => {
    const query = parseQuery(
      {
        page: q.page(),
        per_page: q.perPage(),
        published: q.bool().optional(),
        updated_since: q.dateOrDateTime().optional(),
        status: q.oneOf(["open", "filled"]).optional(),
      },
      req.query,
    );
    sendPage(res, [{ id: "a", query }], { page: query.page, perPage: query.per_page, total: 51 });
  });
  router.get("/v1/things/:id", (req) => {
    throw new NotFoundError(`thing ${req.params.id} does not exist`);
  });
  router.get("/v1/broken", () => {
    throw new Error("database password is hunter2");
  });
  router.get("/v1/source-down", () => {
    throw new SourceUnavailableError(new Error("ECONNREFUSED"));
  });
  router.post("/v1/things", requireJson(), (req, res) => sendData(res, req.body, { status: 201 }));
  return router;
}

let app: StartedApp;
beforeAll(async () => {
  app = await startApp(
    createHttpApp({
      platform: { service: "demo", version: "0.1.0", environment: "sandbox" },
      logger: silentLogger(),
      routes: demoRoutes(),
      bodyLimitBytes: 1024,
    }),
  );
});
afterAll(() => app.close());

describe("platform endpoints", () => {
  it.each(["/health", "/v1/health"])(
    "%s answers service, status and version without database detail",
    async (path) => {
      const res = await fetchJson(`${app.baseUrl}${path}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ service: "demo", status: "ok", version: "0.1.0" });
    },
  );

  it.each(["/version", "/v1/version"])(
    "%s answers the envelope with api_version, build, php and environment",
    async (path) => {
      const res = await fetchJson<{
        success: boolean;
        data: Record<string, string>;
        meta: Record<string, string>;
      }>(`${app.baseUrl}${path}`);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toEqual({
        api_version: "v1",
        build: "0.1.0",
        php: process.version,
        environment: "sandbox",
      });
      expect(res.body.meta.api_version).toBe("v1");
      expect(res.body.meta.request_id).toMatch(UUID);
    },
  );
});

describe("success envelope", () => {
  it("carries a fresh UUID request id per request and pagination on lists", async () => {
    const a = await fetchJson<{ meta: { request_id: string; pagination: unknown } }>(
      `${app.baseUrl}/v1/things?page=2&per_page=10`,
    );
    const b = await fetchJson<{ meta: { request_id: string } }>(`${app.baseUrl}/v1/things`);
    expect(a.status).toBe(200);
    expect(a.body.meta.request_id).toMatch(UUID);
    expect(a.body.meta.request_id).not.toBe(b.body.meta.request_id);
    expect(a.headers.get("x-request-id")).toBe(a.body.meta.request_id);
    expect(a.body.meta.pagination).toEqual({ page: 2, per_page: 10, total: 51, total_pages: 6 });
  });

  it("parses booleans and dates into typed values", async () => {
    const res = await fetchJson<{ data: [{ query: Record<string, unknown> }] }>(
      `${app.baseUrl}/v1/things?published=false&updated_since=2024-03-31T02:30:00%2B02:00`,
    );
    expect(res.status).toBe(200);
    expect(res.body.data[0].query.published).toBe(false);
    expect(res.body.data[0].query.updated_since).toEqual({
      kind: "instant",
      instant: "2024-03-31T00:30:00.000Z",
    });
  });
});

describe("422 VALIDATION_ERROR names the parameter", () => {
  const cases: Array<[string, string]> = [
    ["colour=red", "colour"],
    ["page=0", "page"],
    ["page=-1", "page"],
    ["page=1.5", "page"],
    ["page=abc", "page"],
    ["per_page=0", "per_page"],
    ["per_page=101", "per_page"],
    ["per_page=1e2", "per_page"],
    ["published=yes", "published"],
    ["published=TRUE", "published"],
    ["published=1", "published"],
    ["updated_since=2024-02-30", "updated_since"],
    ["updated_since=2023-02-29T10:00:00Z", "updated_since"],
    ["updated_since=2024-01-01T10:00:00", "updated_since"],
    ["updated_since=yesterday", "updated_since"],
    ["status=closed", "status"],
    ["page=1&page=2", "page"],
  ];
  it.each(cases)("?%s", async (query, field) => {
    const res = await fetchJson<{
      success: boolean;
      error: { code: string; message: string; details: Array<{ field: string }> };
      meta: { request_id: string };
    }>(`${app.baseUrl}/v1/things?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.message).toContain(field);
    expect(res.body.error.details.map((d) => d.field)).toContain(field);
    expect(res.body.meta.request_id).toMatch(UUID);
  });
});

describe("error envelope", () => {
  it("answers unknown routes with 404 NOT_FOUND in the envelope", async () => {
    const res = await fetchJson<{ error: { code: string } }>(`${app.baseUrl}/v1/nope`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
  });

  it("maps domain errors to their status and code", async () => {
    const res = await fetchJson<{ error: { code: string; message: string } }>(
      `${app.baseUrl}/v1/things/42`,
    );
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ code: "NOT_FOUND", message: "thing 42 does not exist" });
  });

  it("answers unexpected errors with an opaque 500 INTERNAL_ERROR", async () => {
    const res = await fetchJson<{ error: { code: string; message: string } }>(
      `${app.baseUrl}/v1/broken`,
    );
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe("INTERNAL_ERROR");
    expect(res.text).not.toContain("hunter2");
  });

  it("answers 503 LEGACY_SOURCE_UNAVAILABLE with Retry-After", async () => {
    const res = await fetchJson<{ error: { code: string } }>(`${app.baseUrl}/v1/source-down`);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("LEGACY_SOURCE_UNAVAILABLE");
    expect(res.headers.get("retry-after")).toBe("5");
  });

  it("answers malformed JSON with 400, never 500", async () => {
    const res = await fetchJson<{ error: { code: string } }>(`${app.baseUrl}/v1/things`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("MALFORMED_REQUEST");
  });

  it("answers oversized bodies with 413", async () => {
    const res = await fetchJson<{ error: { code: string } }>(`${app.baseUrl}/v1/things`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ a: "x".repeat(5000) }),
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("answers a non-JSON body with 415", async () => {
    const res = await fetchJson<{ error: { code: string } }>(`${app.baseUrl}/v1/things`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "hi",
    });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("answers broken percent-encoding in a path with 400", async () => {
    const res = await fetchJson<{ error: { code: string } }>(`${app.baseUrl}/v1/things/%E0%A4%A`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("MALFORMED_REQUEST");
  });
});
