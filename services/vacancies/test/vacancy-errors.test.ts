import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtures } from "@svc/sandbox";
import { fetchJson, TcpProxy, unusedPort, type TempDatabase } from "@svc/testing";
import {
  seededLegacyDatabase,
  startVacancies,
  type Envelope,
  type RunningVacancies,
} from "./support/harness.ts";

// The error envelope of the vacancy endpoints: 401, 403, 404, 422 and 503 in the error envelope.
const ENDPOINTS = [
  "/v1/vacancies",
  `/v1/vacancies/${fixtures.vacancies.ordinary}`,
  "/v1/meta/vacancies",
];

let database: TempDatabase;
let run: RunningVacancies;

beforeAll(async () => {
  database = await seededLegacyDatabase(0);
  run = await startVacancies({ legacyUrl: database.url });
});
afterAll(async () => {
  await run.close();
  await database.drop();
});

describe("authentication and scope", () => {
  it.each(ENDPOINTS)(
    "%s answers 401 UNAUTHENTICATED with a Bearer challenge without a token",
    async (path) => {
      const res = await fetchJson<Envelope>(`${run.app.baseUrl}${path}`);
      expect(res.status).toBe(401);
      expect(res.body.error?.code).toBe("UNAUTHENTICATED");
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="integration-service"');
    },
  );

  it.each(ENDPOINTS)(
    "%s answers 403 INSUFFICIENT_SCOPE naming vacancies:read to a token without it",
    async (path) => {
      const token = await run.token("practices:read candidates:read");
      const res = await fetchJson<Envelope>(`${run.app.baseUrl}${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(403);
      expect(res.body.error?.code).toBe("INSUFFICIENT_SCOPE");
      expect(res.body.error?.message).toContain("vacancies:read");
    },
  );

  it("answers 401 to a token that is not valid", async () => {
    const res = await fetchJson<Envelope>(`${run.app.baseUrl}/v1/vacancies`, {
      headers: { authorization: "Bearer not.a.token" },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });
});

describe("validation", () => {
  it.each([
    ["page=0", "page"],
    ["page=abc", "page"],
    ["per_page=101", "per_page"],
    ["per_page=0", "per_page"],
    ["per_page=2.5", "per_page"],
    ["language=de", "language"],
    ["language=NL", "language"],
    ["language=", "language"],
    ["province=", "province"],
    ["position=", "position"],
    ["status=closed", "status"],
    ["status=1", "status"],
    ["published=yes", "published"],
    ["published=1", "published"],
    ["practice=", "practice"],
    ["updated_since=yesterday", "updated_since"],
    ["updated_since=2024-02-30", "updated_since"],
    ["updated_since=2024-10-27T02:30:00", "updated_since"],
    ["updated_since=2024-10-27T02:30", "updated_since"],
    ["sort=title", "sort"],
    ["language=nl&language=fr", "language"],
  ])("GET /v1/vacancies?%s answers 422 VALIDATION_ERROR naming %s", async (query, field) => {
    const res = await run.get(`/v1/vacancies?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.error?.code).toBe("VALIDATION_ERROR");
    expect(res.body.error?.details?.map((d) => d.field)).toEqual([field]);
  });

  it("names every bad parameter of one request", async () => {
    const res = await run.get("/v1/vacancies?per_page=500&status=gone&published=maybe");
    expect(res.status).toBe(422);
    expect(res.body.error?.details?.map((d) => d.field).sort()).toEqual([
      "per_page",
      "published",
      "status",
    ]);
  });

  it("answers 422 naming uuid for a path value that cannot be a vacancy uuid", async () => {
    const res = await run.get("/v1/vacancies/not-a-uuid");
    expect(res.status).toBe(422);
    expect(res.body.error?.details).toEqual([{ field: "uuid", message: "must be a UUID" }]);
  });

  it.each([
    `/v1/vacancies/${fixtures.vacancies.ordinary}?expand=all`,
    "/v1/meta/vacancies?lang=nl",
  ])("%s answers 422 for an unknown parameter", async (path) => {
    const res = await run.get(path);
    expect(res.status).toBe(422);
    expect(res.body.error?.details?.[0]?.field).toMatch(/^(expand|lang)$/);
  });

  it("answers 404 NOT_FOUND for a uuid no vacancy has", async () => {
    const res = await run.get("/v1/vacancies/00000000-0000-4000-8000-000000000000");
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: "NOT_FOUND" },
      meta: { api_version: "v1" },
    });
  });

  it("answers 405 with Allow to a method other than GET", async () => {
    const token = await run.token();
    const res = await fetchJson<Envelope>(`${run.app.baseUrl}/v1/vacancies`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("legacy source unavailable", () => {
  async function expect503Quickly(target: RunningVacancies): Promise<void> {
    for (const path of ENDPOINTS) {
      const started = Date.now();
      const res = await target.get(path);
      expect(res.status, path).toBe(503);
      expect(res.body.error?.code).toBe("LEGACY_SOURCE_UNAVAILABLE");
      expect(res.headers.get("retry-after")).toBe("5");
      expect(Date.now() - started).toBeLessThan(3_000);
    }
  }

  it("answers 503 LEGACY_SOURCE_UNAVAILABLE at once when nothing listens at the database address", async () => {
    const url = new URL(database.url);
    url.port = String(await unusedPort());
    const down = await startVacancies({ legacyUrl: url.toString(), timeoutMs: 1_000 });
    try {
      await expect503Quickly(down);
    } finally {
      await down.close();
    }
  });

  it("answers 503 within its timeout when the database stops answering, and recovers without a restart", async () => {
    const proxy = await TcpProxy.start({
      host: "127.0.0.1",
      port: Number(new URL(database.url).port || 3306),
    });
    const url = new URL(database.url);
    url.port = String(proxy.port);
    const frozen = await startVacancies({ legacyUrl: url.toString(), timeoutMs: 1_000 });
    try {
      expect((await frozen.get("/v1/vacancies")).status).toBe(200);
      proxy.pause();
      await expect503Quickly(frozen);
      proxy.resume();
      expect((await frozen.get("/v1/vacancies")).status).toBe(200);
    } finally {
      await frozen.close();
      await proxy.close();
    }
  });
});
