import { decodeJwt, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import { createTokenVerifier, remoteKeys, requireScope } from "@svc/auth";
import { createHttpApp, sendData } from "@svc/http";
import { fetchJson, silentLogger, startApp, type JsonResponse } from "@svc/testing";
import { basic, startAuth, TEST_TOKEN_ISSUER, type AuthUnderTest } from "./support/harness.ts";

let auth: AuthUnderTest;
let client: { id: string; secret: string };
const FORM = "application/x-www-form-urlencoded";

beforeAll(async () => {
  auth = await startAuth({ TOKEN_RATE_IP_BURST: "1000", TOKEN_RATE_CLIENT_BURST: "1000" });
  const created = await auth.manager.create({
    name: "request rules",
    scopes: ["vacancies:read", "practices:read", "webhooks:read"],
  });
  client = { id: created.client.id, secret: created.secret };
});
afterAll(() => auth.close());

function post(
  init: { body?: string; headers?: Record<string, string>; path?: string; method?: string } = {},
): Promise<JsonResponse> {
  return fetchJson(`${auth.app.baseUrl}${init.path ?? "/oauth/token"}`, {
    method: init.method ?? "POST",
    headers: {
      authorization: basic(client.id, client.secret),
      "content-type": FORM,
      ...init.headers,
    },
    ...(init.body !== undefined && { body: init.body }),
  });
}

/** RFC 6749 5.2 body (not the /v1 envelope) and the no-store headers every answer carries. */
function expectOAuthError(res: JsonResponse, status: number, error: string): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error, error_description: expect.any(String) });
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("pragma")).toBe("no-cache");
}

describe("POST /oauth/token: success", () => {
  it("issues a Bearer token for 3600 s with every scope of the client when none is requested", async () => {
    const res = await post({ body: "grant_type=client_credentials" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      "access_token",
      "expires_in",
      "scope",
      "token_type",
    ]);
    expect(res.body).toMatchObject({
      token_type: "Bearer",
      expires_in: 3600,
      scope: "practices:read vacancies:read webhooks:read",
    });
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("pragma")).toBe("no-cache");
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("treats an empty scope like an absent one, and grants exactly the requested subset otherwise", async () => {
    expect((await post({ body: "grant_type=client_credentials&scope=" })).body.scope).toBe(
      "practices:read vacancies:read webhooks:read",
    );
    const res = await post({
      body: "grant_type=client_credentials&scope=webhooks%3Aread+vacancies:read+vacancies:read",
    });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe("vacancies:read webhooks:read");
  });

  it("accepts a charset parameter and a lower-case basic scheme", async () => {
    const res = await post({
      body: "grant_type=client_credentials",
      headers: {
        "content-type": `${FORM}; charset=UTF-8`,
        authorization: basic(client.id, client.secret).replace("Basic", "basic"),
      },
    });
    expect(res.status).toBe(200);
  });

  it("issues an RFC 9068 JWT that the services' shared verifier accepts unchanged", async () => {
    const res = await post({ body: "grant_type=client_credentials&scope=vacancies:read" });
    const jwt = String(res.body.access_token);
    expect(decodeProtectedHeader(jwt)).toEqual({
      alg: "ES256",
      typ: "at+jwt",
      kid: auth.keys.active.kid,
    });
    const claims = decodeJwt(jwt);
    expect(Object.keys(claims).sort()).toEqual([
      "aud",
      "client_id",
      "exp",
      "iat",
      "iss",
      "jti",
      "scope",
      "sub",
    ]);
    expect(claims).toMatchObject({
      iss: TEST_TOKEN_ISSUER,
      sub: client.id,
      client_id: client.id,
      aud: "integration-service",
      scope: "vacancies:read",
    });
    expect(claims.exp).toBe(Number(claims.iat) + 3600);
    expect(Math.abs(Number(claims.iat) - Date.now() / 1000)).toBeLessThan(10);
    const verify = createTokenVerifier({
      keys: remoteKeys(`${auth.app.baseUrl}/.well-known/jwks.json`),
      issuer: TEST_TOKEN_ISSUER,
      audience: "integration-service",
    });
    const verified = await verify(`Bearer ${jwt}`);
    expect(verified.clientId).toBe(client.id);
    expect([...verified.scopes]).toEqual(["vacancies:read"]);
    const again = decodeJwt(
      String((await post({ body: "grant_type=client_credentials" })).body.access_token),
    );
    expect(again.jti).not.toBe(claims.jti);
  });

  it("INSUFFICIENT_SCOPE tells the truth: a token asked for with fewer scopes is asked for again with more", async () => {
    const verify = createTokenVerifier({
      keys: remoteKeys(`${auth.app.baseUrl}/.well-known/jwks.json`),
      issuer: TEST_TOKEN_ISSUER,
      audience: "integration-service",
    });
    const routes = express.Router();
    routes.get("/v1/practices", requireScope(verify, "practices:read"), (_req, res) =>
      sendData(res, [], { pagination: { page: 1, per_page: 25, total: 0, total_pages: 0 } }),
    );
    const service = await startApp(
      createHttpApp({
        platform: { service: "practices", version: "1.0.0", environment: "sandbox" },
        logger: silentLogger(),
        routes,
      }),
    );
    try {
      const read = async (token: string) =>
        fetchJson<{ error?: { code: string; message: string } }>(
          `${service.baseUrl}/v1/practices`,
          { headers: { authorization: `Bearer ${token}` } },
        );
      const narrow = await post({ body: "grant_type=client_credentials&scope=vacancies:read" });
      const refused = await read(String(narrow.body.access_token));
      expect(refused.status).toBe(403);
      expect(refused.body.error?.code).toBe("INSUFFICIENT_SCOPE");
      expect(refused.body.error?.message).toMatch(/request a new token/);
      // Doing what it says.
      const wider = await post({ body: "grant_type=client_credentials&scope=practices:read" });
      expect((await read(String(wider.body.access_token))).status).toBe(200);
    } finally {
      await service.close();
    }
  });

  it("publishes public keys only at /.well-known/jwks.json", async () => {
    const res = await fetchJson<{ keys: Array<Record<string, unknown>> }>(
      `${auth.app.baseUrl}/.well-known/jwks.json`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/jwk-set\+json/);
    expect(res.body.keys).toHaveLength(1);
    expect(Object.keys(res.body.keys[0] ?? {}).sort()).toEqual([
      "alg",
      "crv",
      "kid",
      "kty",
      "use",
      "x",
      "y",
    ]);
  });
});

describe("POST /oauth/token: request errors (RFC 6749 5.2)", () => {
  const cases: Array<[string, () => Promise<JsonResponse>, number, string]> = [
    ["grant_type missing", () => post({ body: "scope=vacancies:read" }), 400, "invalid_request"],
    ["grant_type empty", () => post({ body: "grant_type=" }), 400, "invalid_request"],
    [
      "grant_type repeated",
      () => post({ body: "grant_type=client_credentials&grant_type=client_credentials" }),
      400,
      "invalid_request",
    ],
    [
      "another grant type",
      () => post({ body: "grant_type=password&username=a&password=b" }),
      400,
      "unsupported_grant_type",
    ],
    [
      "the authorization_code grant",
      () => post({ body: "grant_type=authorization_code&code=x" }),
      400,
      "unsupported_grant_type",
    ],
    [
      "scope repeated",
      () =>
        post({ body: "grant_type=client_credentials&scope=vacancies:read&scope=practices:read" }),
      400,
      "invalid_request",
    ],
    [
      "an unknown scope",
      () => post({ body: "grant_type=client_credentials&scope=vacancies:read%20admin" }),
      400,
      "invalid_scope",
    ],
    [
      "a scope the sandbox does not have",
      () => post({ body: "grant_type=client_credentials&scope=crm-mirror:write" }),
      400,
      "invalid_scope",
    ],
    [
      "a scope not assigned to the client",
      () => post({ body: "grant_type=client_credentials&scope=candidates:read" }),
      400,
      "invalid_scope",
    ],
    [
      "credentials in the header and the body",
      () => post({ body: `grant_type=client_credentials&client_id=${client.id}` }),
      400,
      "invalid_request",
    ],
    [
      "a secret in the body as well",
      () => post({ body: `grant_type=client_credentials&client_secret=${client.secret}` }),
      400,
      "invalid_request",
    ],
    [
      "a JSON body",
      () =>
        post({
          body: JSON.stringify({ grant_type: "client_credentials" }),
          headers: { "content-type": "application/json" },
        }),
      400,
      "invalid_request",
    ],
    [
      "a malformed JSON body",
      () => post({ body: "{", headers: { "content-type": "application/json" } }),
      400,
      "invalid_request",
    ],
    [
      "a text/plain body",
      () =>
        post({ body: "grant_type=client_credentials", headers: { "content-type": "text/plain" } }),
      400,
      "invalid_request",
    ],
    [
      "no content type",
      () => post({ body: "grant_type=client_credentials", headers: { "content-type": "" } }),
      400,
      "invalid_request",
    ],
    [
      "a charset other than UTF-8",
      () =>
        post({
          body: "grant_type=client_credentials",
          headers: { "content-type": `${FORM}; charset=ISO-8859-1` },
        }),
      400,
      "invalid_request",
    ],
    [
      "a body that is not UTF-8",
      () => post({ body: Buffer.from([0x67, 0xff, 0xfe]).toString("latin1") }),
      400,
      "invalid_request",
    ],
    [
      "a gzip Content-Encoding whose data does not inflate",
      () =>
        post({ body: "grant_type=client_credentials", headers: { "content-encoding": "gzip" } }),
      400,
      "invalid_request",
    ],
    [
      "parameters in the URL",
      () =>
        post({
          path: "/oauth/token?grant_type=client_credentials",
          body: "grant_type=client_credentials",
        }),
      400,
      "invalid_request",
    ],
    [
      "a body over 4 KiB",
      () => post({ body: `grant_type=client_credentials&pad=${"x".repeat(5_000)}` }),
      413,
      "invalid_request",
    ],
    ["GET", () => post({ method: "GET" }), 405, "invalid_request"],
    [
      "PUT",
      () => post({ method: "PUT", body: "grant_type=client_credentials" }),
      405,
      "invalid_request",
    ],
    [
      "no Authorization header",
      () => post({ body: "grant_type=client_credentials", headers: { authorization: "" } }),
      401,
      "invalid_client",
    ],
    [
      "credentials in the body only (client_secret_post is not supported)",
      () =>
        post({
          body: `grant_type=client_credentials&client_id=${client.id}&client_secret=${client.secret}`,
          headers: { authorization: "" },
        }),
      401,
      "invalid_client",
    ],
    [
      "a Bearer Authorization header",
      () =>
        post({ body: "grant_type=client_credentials", headers: { authorization: "Bearer abc" } }),
      401,
      "invalid_client",
    ],
  ];

  it.each(cases)(
    "answers %s with the OAuth error body and no-store",
    async (_name, send, status, error) => {
      expectOAuthError(await send(), status, error);
    },
  );

  it("hints at HTTP Basic for credentials in the form body, the same hint right or wrong", async () => {
    const descriptions: string[] = [];
    for (const secret of [client.secret, "not-the-secret"]) {
      const res = await post({
        body: `grant_type=client_credentials&client_id=${client.id}&client_secret=${secret}`,
        headers: { authorization: "" },
      });
      expectOAuthError(res, 401, "invalid_client");
      const body = res.body as { error_description: string };
      descriptions.push(body.error_description);
    }
    expect(descriptions[0]).toMatch(/HTTP Basic/);
    expect(descriptions[1]).toBe(descriptions[0]);
    // Without body credentials the answer stays the bare one.
    const bare = await post({
      body: "grant_type=client_credentials",
      headers: { authorization: "" },
    });
    expect((bare.body as { error_description: string }).error_description).toBe(
      "client authentication failed",
    );
  });

  it("names POST in Allow on 405", async () => {
    expect((await post({ method: "GET" })).headers.get("allow")).toBe("POST");
  });

  it("ignores unknown parameters (RFC 6749 3.1)", async () => {
    expect(
      (await post({ body: "grant_type=client_credentials&audience=x&foo=1&foo=2" })).status,
    ).toBe(200);
  });
});
