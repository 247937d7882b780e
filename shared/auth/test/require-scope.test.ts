import { createServer } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { base64url, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpApp, sendData } from "@svc/http";
import {
  createTestIssuer,
  fetchJson,
  silentLogger,
  startApp,
  TEST_AUDIENCE,
  TEST_ISSUER,
  type StartedApp,
  type TestIssuer,
} from "@svc/testing";
import {
  createTokenVerifier,
  remoteKeys,
  requireScope,
  type RevocationView,
  type TokenVerifier,
} from "../src/index.ts";

let issuer: TestIssuer;
let app: StartedApp;
const revokedClients = new Set<string>();
let revocationFeedHealthy = true;
const revocation: RevocationView = {
  status: (token) =>
    !revocationFeedHealthy ? "unknown" : revokedClients.has(token.clientId) ? "revoked" : "valid",
};

function appWith(verify: TokenVerifier) {
  const router = express.Router();
  // Not a documented path: this stand-in answers its own shape, which the contract checks would
  // refuse at /v1/vacancies.
  router.get("/v1/guarded", requireScope(verify, "vacancies:read"), (_req, res) =>
    sendData(res, { client: res.locals.auth.clientId }),
  );
  return createHttpApp({
    platform: { service: "t", version: "0.1.0", environment: "sandbox" },
    logger: silentLogger(),
    routes: router,
  });
}

beforeAll(async () => {
  issuer = await createTestIssuer();
  app = await startApp(
    appWith(
      createTokenVerifier({
        keys: issuer.keys,
        issuer: TEST_ISSUER,
        audience: TEST_AUDIENCE,
        revocation,
      }),
    ),
  );
});
afterAll(() => app.close());

async function get(token?: string, base = app.baseUrl) {
  return fetchJson<{ error: { code: string } }>(`${base}/v1/guarded`, {
    headers: token === undefined ? {} : { authorization: token },
  });
}

describe("bearer-token verification", () => {
  it("accepts a valid token with the scope", async () => {
    const res = await get(
      `Bearer ${await issuer.mint({ scope: "practices:read vacancies:read", clientId: "c1" })}`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: { client: "c1" } });
  });

  it("accepts a lower-case bearer scheme", async () => {
    expect((await get(`bearer ${await issuer.mint({ scope: "vacancies:read" })}`)).status).toBe(
      200,
    );
  });

  it("answers no token with 401 UNAUTHENTICATED and a Bearer challenge without error attribute", async () => {
    const res = await get();
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHENTICATED");
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="integration-service"');
  });

  it("answers a valid token without the scope with 403 INSUFFICIENT_SCOPE naming the scope", async () => {
    const res = await get(`Bearer ${await issuer.mint({ scope: "practices:read" })}`);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("INSUFFICIENT_SCOPE");
    expect(JSON.stringify(res.body)).toContain("vacancies:read");
    expect(res.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
  });

  const rejected: Array<[string, () => Promise<string>]> = [
    ["expired", () => issuer.mint({ scope: "vacancies:read", issuedAt: -7200, expiresIn: 3600 })],
    ["not yet valid", () => issuer.mint({ scope: "vacancies:read", notBefore: 600 })],
    [
      "wrong issuer",
      () => issuer.mint({ scope: "vacancies:read", issuer: "https://evil.example" }),
    ],
    ["wrong audience", () => issuer.mint({ scope: "vacancies:read", audience: "someone-else" })],
    ["wrong typ", () => issuer.mint({ scope: "vacancies:read", typ: "JWT" })],
    ["unknown kid", () => issuer.mint({ scope: "vacancies:read", kid: "no-such-key" })],
    ["missing jti", () => issuer.mint({ scope: "vacancies:read", omit: ["jti"] })],
    ["missing client_id", () => issuer.mint({ scope: "vacancies:read", omit: ["client_id"] })],
    [
      "bad signature",
      async () => {
        const [h, p, s] = (await issuer.mint({ scope: "vacancies:read" })).split(".");
        return `${h}.${p}.${s?.startsWith("A") ? "B" : "A"}${s?.slice(1)}`;
      },
    ],
    [
      "alg none",
      async () => {
        const enc = (o: unknown) => base64url.encode(JSON.stringify(o));
        const now = Math.floor(Date.now() / 1000);
        return `${enc({ alg: "none", typ: "at+jwt" })}.${enc({ iss: TEST_ISSUER, aud: TEST_AUDIENCE, sub: "c", client_id: "c", scope: "vacancies:read", jti: "j", iat: now, exp: now + 60 })}.`;
      },
    ],
    [
      "HS256 signed with the public key",
      async () => {
        const publicJwk = JSON.stringify(issuer.jwks.keys[0]);
        return new SignJWT({ client_id: "c", scope: "vacancies:read", jti: "j" })
          .setProtectedHeader({ alg: "HS256", typ: "at+jwt", kid: issuer.jwks.keys[0]?.kid })
          .setIssuer(TEST_ISSUER)
          .setAudience(TEST_AUDIENCE)
          .setSubject("c")
          .setIssuedAt()
          .setExpirationTime("1h")
          .sign(new TextEncoder().encode(publicJwk));
      },
    ],
    ["garbage", async () => "not-a-jwt"],
  ];
  it.each(rejected)("rejects a token that is %s with 401 invalid_token", async (_name, make) => {
    const res = await get(`Bearer ${await make()}`);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHENTICATED");
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("rejects a non-bearer Authorization header", async () => {
    const res = await get("Basic Zm9vOmJhcg==");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("rejects a revoked client's token, and answers 503 while revocation status is unknown", async () => {
    const token = `Bearer ${await issuer.mint({ scope: "vacancies:read", clientId: "revoked-one" })}`;
    expect((await get(token)).status).toBe(200);
    revokedClients.add("revoked-one");
    const res = await get(token);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    revocationFeedHealthy = false;
    try {
      expect((await get(`Bearer ${await issuer.mint({ scope: "vacancies:read" })}`)).status).toBe(
        503,
      );
    } finally {
      revocationFeedHealthy = true;
    }
  });
});

describe("remote JWKS", () => {
  it("verifies against keys served over HTTP, and answers 503 (not a hang) when they cannot be fetched", async () => {
    const jwksServer = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(issuer.jwks));
    }).listen(0, "127.0.0.1");
    await once(jwksServer, "listening");
    const port = (jwksServer.address() as AddressInfo).port;
    const remote = await startApp(
      appWith(
        createTokenVerifier({
          keys: remoteKeys(`http://127.0.0.1:${port}/jwks`),
          issuer: TEST_ISSUER,
          audience: TEST_AUDIENCE,
        }),
      ),
    );
    const down = await startApp(
      appWith(
        createTokenVerifier({
          keys: remoteKeys("http://127.0.0.1:9/jwks", 500),
          issuer: TEST_ISSUER,
          audience: TEST_AUDIENCE,
        }),
      ),
    );
    try {
      const token = `Bearer ${await issuer.mint({ scope: "vacancies:read" })}`;
      expect((await get(token, remote.baseUrl)).status).toBe(200);
      const started = Date.now();
      const res = await get(token, down.baseUrl);
      expect(res.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await remote.close();
      await down.close();
      jwksServer.close();
    }
  });
});
