/**
 * The practice endpoints' errors in the contract's envelope: 401, 403, 404, 405, 422 naming the
 * parameter, and 503 LEGACY_SOURCE_UNAVAILABLE, fast, when the legacy database is unreachable or
 * stalls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtures } from "@svc/sandbox";
import { fetchJson, TcpProxy, unusedPort, type TempDatabase } from "@svc/testing";
import { seedLegacy, startPractices, type Envelope, type PracticesApp } from "./support/harness.ts";

const ENDPOINTS = [
  "/v1/practices",
  `/v1/practices/${fixtures.practices.primaryComplete}`,
  "/v1/meta/practices",
];
let legacy: TempDatabase;
let svc: PracticesApp;

beforeAll(async () => {
  legacy = await seedLegacy(0);
  svc = await startPractices({ legacyUrl: legacy.url });
});
afterAll(async () => {
  await svc?.close();
  await legacy?.drop();
});

function urlWithPort(url: string, port: number): string {
  const u = new URL(url);
  u.port = String(port);
  return u.toString();
}

describe("authentication and scope", () => {
  it.each(ENDPOINTS)(
    "%s answers 401 UNAUTHENTICATED with a Bearer challenge without a token",
    async (path) => {
      const res = await svc.get(path, null);
      expect(res.status).toBe(401);
      expect(res.body.error?.code).toBe("UNAUTHENTICATED");
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="integration-service"');
    },
  );

  it("answers 401 invalid_token for a token that is not one", async () => {
    const res = await fetchJson<Envelope>(`${svc.app.baseUrl}/v1/practices`, {
      headers: { authorization: "Bearer not.a.jwt" },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it.each(ENDPOINTS)(
    "%s answers 403 INSUFFICIENT_SCOPE naming practices:read for a token without it",
    async (path) => {
      const res = await svc.get(path, "vacancies:read crm-mirror:write");
      expect(res.status).toBe(403);
      expect(res.body.error?.code).toBe("INSUFFICIENT_SCOPE");
      expect(res.body.error?.message).toContain("practices:read");
    },
  );
});

describe("422 VALIDATION_ERROR names the parameter", () => {
  const cases: Array<[string, string]> = [
    ["/v1/practices?per_page=101", "per_page"],
    ["/v1/practices?per_page=0", "per_page"],
    ["/v1/practices?page=0", "page"],
    ["/v1/practices?page=two", "page"],
    ["/v1/practices?active=yes", "active"],
    ["/v1/practices?visible=1", "visible"],
    ["/v1/practices?language=NL", "language"],
    ["/v1/practices?language=de", "language"],
    ["/v1/practices?search=", "search"],
    [`/v1/practices?province=${"x".repeat(101)}`, "province"],
    ["/v1/practices?active=true&active=false", "active"],
    ["/v1/practices?name=Vermeulen", "name"],
    [`/v1/practices/${fixtures.practices.primaryComplete}?expand=all`, "expand"],
    [`/v1/practices/${"x".repeat(256)}`, "practice_id"],
    ["/v1/practices/abc%00def", "practice_id"],
    ["/v1/meta/practices?lang=nl", "lang"],
  ];
  it.each(cases)("%s → %s", async (path, field) => {
    const res = await svc.get(path);
    expect(res.status).toBe(422);
    expect(res.body.error?.code).toBe("VALIDATION_ERROR");
    expect(res.body.error?.details?.map((d) => d.field)).toContain(field);
  });
});

describe("other client errors", () => {
  it("answers 404 NOT_FOUND for a practice id neither source holds", async () => {
    const res = await svc.get(`/v1/practices/${fixtures.values.danglingPracticeId}`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: "NOT_FOUND" },
      meta: { api_version: "v1" },
    });
  });

  it("answers 405 with Allow for a write method on a read endpoint", async () => {
    const res = await fetchJson<Envelope>(`${svc.app.baseUrl}/v1/practices`, { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });

  it("answers 400 MALFORMED_REQUEST for broken percent-encoding in the id", async () => {
    const res = await svc.get("/v1/practices/%E0%A4%A");
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe("MALFORMED_REQUEST");
  });

  it("has no CRM mirror in the sandbox: 404, whatever the token", async () => {
    const token = await svc.issuer.mint({ scope: "crm-mirror:write" });
    const res = await fetchJson<Envelope>(`${svc.app.baseUrl}/v1/crm-mirror/accounts/abc`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe("NOT_FOUND");
  });
});

describe("503 LEGACY_SOURCE_UNAVAILABLE", () => {
  async function expectUnavailable(app: PracticesApp) {
    for (const path of ENDPOINTS) {
      const started = Date.now();
      const res = await app.get(path);
      expect(res.status, path).toBe(503);
      expect(res.body.error?.code).toBe("LEGACY_SOURCE_UNAVAILABLE");
      expect(res.headers.get("retry-after")).toBe("5");
      expect(Date.now() - started).toBeLessThan(3_000);
    }
  }

  it("answers 503 quickly when nothing listens at the legacy database's address", async () => {
    const down = await startPractices({
      legacyUrl: urlWithPort(legacy.url, await unusedPort()),
      legacyTimeoutMs: 1_000,
      issuer: svc.issuer,
    });
    try {
      await expectUnavailable(down);
      // Validation comes first: a bad request is the client's problem whatever the source does.
      expect((await down.get("/v1/practices?per_page=500")).status).toBe(422);
    } finally {
      await down.close();
    }
  });

  it("answers 503 quickly while the legacy database stalls, and serves again once it answers", async () => {
    const proxy = await TcpProxy.start({
      host: "127.0.0.1",
      port: Number(new URL(legacy.url).port || 3306),
    });
    const stalled = await startPractices({
      legacyUrl: urlWithPort(legacy.url, proxy.port),
      legacyTimeoutMs: 1_000,
      issuer: svc.issuer,
    });
    try {
      expect((await stalled.get("/v1/practices")).status).toBe(200);
      proxy.pause();
      await expectUnavailable(stalled);
      proxy.resume();
      expect(
        (await stalled.get(`/v1/practices/${fixtures.practices.primaryComplete}`)).status,
      ).toBe(200);
    } finally {
      await stalled.close();
      await proxy.close();
    }
  });
});
