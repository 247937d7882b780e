import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readOpenApiJson } from "@svc/openapi";
import { fetchJson } from "@svc/testing";
import { startAuth, type AuthUnderTest } from "./support/harness.ts";

let auth: AuthUnderTest;
let production: AuthUnderTest;

beforeAll(async () => {
  [auth, production] = await Promise.all([startAuth(), startAuth({ ENVIRONMENT: "production" })]);
});
afterAll(() => Promise.all([auth.close(), production.close()]));

describe("GET /openapi.json", () => {
  it("serves the sandbox's checked-in document byte for byte in the sandbox, without a token", async () => {
    const res = await fetch(`${auth.app.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const served = await res.text();
    expect(served).toBe(readOpenApiJson("sandbox"));
    expect(served).not.toContain("crm-mirror");
    expect(served).not.toContain("application.submitted");
  });

  it("serves production's checked-in document in production", async () => {
    const res = await fetch(`${production.app.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(readOpenApiJson("production"));
  });

  it("describes the version this installation reports at /health and /version", async () => {
    const document = await fetchJson<{ openapi: string; info: { version: string } }>(
      `${auth.app.baseUrl}/openapi.json`,
    );
    const health = await fetchJson<{ version: string }>(`${auth.app.baseUrl}/health`);
    const version = await fetchJson<{ data: { build: string } }>(`${auth.app.baseUrl}/v1/version`);
    expect(document.body.openapi).toBe("3.1.0");
    expect(document.body.info.version).toMatch(/^0\.\d+\.\d+$/);
    expect(health.body.version).toBe(document.body.info.version);
    expect(version.body.data.build).toBe(document.body.info.version);
  });

  it("answers another method with 405 and Allow, in the error envelope", async () => {
    const res = await fetchJson<{ success: boolean; error: { code: string } }>(
      `${auth.app.baseUrl}/openapi.json`,
      { method: "POST" },
    );
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    expect(res.body).toMatchObject({ success: false, error: { code: "METHOD_NOT_ALLOWED" } });
  });
});
