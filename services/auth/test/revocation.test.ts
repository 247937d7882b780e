import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTokenVerifier,
  remoteKeys,
  requireScope,
  startRevocationFeed,
  type RevocationFeed,
  type RevocationView,
} from "@svc/auth";
import { createHttpApp, sendPage } from "@svc/http";
import {
  fetchJson,
  silentLogger,
  startApp,
  testEnv,
  unusedPort,
  type StartedApp,
} from "@svc/testing";
import { ClientManager } from "../src/domain/clients/client-manager.ts";
import { scheduleReconciliation } from "../src/messaging/revocation-publisher.ts";
import { startAuth, TEST_TOKEN_ISSUER, waitFor, type AuthUnderTest } from "./support/harness.ts";

let auth: AuthUnderTest;
let serviceFeed: RevocationFeed;
let service: StartedApp;

/**
 * Another service (say vacancies): the shared verifier against auth's JWKS, plus its own revocation
 * view.
 */
function resourceApp(revocation: RevocationView) {
  const verify = createTokenVerifier({
    keys: remoteKeys(`${auth.app.baseUrl}/.well-known/jwks.json`),
    issuer: TEST_TOKEN_ISSUER,
    audience: "integration-service",
    revocation,
  });
  const routes = express.Router();
  routes.get("/v1/vacancies", requireScope(verify, "vacancies:read"), (_req, res) =>
    sendPage(res, [], { page: 1, perPage: 25, total: 0 }),
  );
  return createHttpApp({
    platform: { service: "vacancies", version: "0.1.0", environment: "sandbox" },
    logger: silentLogger(),
    routes,
  });
}

beforeAll(async () => {
  auth = await startAuth();
  const config = {
    NATS_SERVERS: [testEnv.TEST_NATS_URL],
    NATS_NAMESPACE: auth.config.NATS_NAMESPACE,
    REVOCATION_MAX_STALENESS_MS: 60_000,
  };
  serviceFeed = startRevocationFeed({ config, name: "vacancies-test", logger: silentLogger() });
  await serviceFeed.loaded;
  service = await startApp(resourceApp(serviceFeed.view));
});
afterAll(async () => {
  await service.close();
  await serviceFeed.stop();
  await auth.close();
});

async function clientWithToken(
  name: string,
): Promise<{ id: string; secret: string; token: string }> {
  const { client, secret } = await auth.manager.create({ name, scopes: ["vacancies:read"] });
  const res = await auth.token(client.id, secret);
  expect(res.status).toBe(200);
  return { id: client.id, secret, token: String(res.body.access_token) };
}

const callService = (token: string) =>
  fetchJson<{ error: { code: string } }>(`${service.baseUrl}/v1/vacancies`, {
    headers: { authorization: `Bearer ${token}` },
  });

async function expectRejectedWithin(token: string, ms: number): Promise<void> {
  const started = Date.now();
  await waitFor(
    "the token to be rejected",
    async () => (await callService(token)).status === 401,
    ms,
  );
  const elapsed = Date.now() - started;
  const res = await callService(token);
  expect(res.body.error.code).toBe("UNAUTHENTICATED");
  expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  expect(elapsed).toBeLessThan(ms);
}

describe("revocation reaches every service within seconds, without calling auth per request", () => {
  it("rejects a revoked client's existing token with 401 invalid_token within 2 s; other clients are unaffected", async () => {
    const victim = await clientWithToken("to revoke");
    const bystander = await clientWithToken("bystander");
    expect((await callService(victim.token)).status).toBe(200);
    const { propagation } = await auth.manager.revoke(victim.id);
    expect(propagation).toEqual({ propagated: true });
    await expectRejectedWithin(victim.token, 2_000);
    expect((await callService(bystander.token)).status).toBe(200);
    expect((await auth.token(victim.id, victim.secret)).status).toBe(401);
  });

  it("rejects an expired client's existing token within 2 s", async () => {
    const client = await clientWithToken("to expire");
    expect((await callService(client.token)).status).toBe(200);
    await auth.manager.expire(client.id);
    await expectRejectedWithin(client.token, 2_000);
  });

  it("rejects tokens from a scheduled expiry on, with nothing written at that moment", async () => {
    const client = await clientWithToken("scheduled expiry");
    await auth.manager.expire(client.id, new Date(Date.now() + 1_500));
    await waitFor(
      "the schedule to be seen",
      () => serviceFeed.watch()?.get(client.id) !== undefined,
      2_000,
    );
    expect((await callService(client.token)).status).toBe(200);
    expect((await auth.token(client.id, client.secret)).status).toBe(200);
    await expectRejectedWithin(client.token, 3_500);
  });

  it("re-publishes a revocation whose publication failed, from the database, on the next reconciliation", async () => {
    const client = await clientWithToken("failed publication");
    const offline = new ClientManager({
      store: auth.store,
      environment: "sandbox",
      publish: () => Promise.reject(new Error("NATS is down")),
    });
    const { propagation } = await offline.revoke(client.id);
    expect(propagation.propagated).toBe(false);
    expect((await callService(client.token)).status).toBe(200);
    const reconciliation = scheduleReconciliation(auth.feed, {
      store: auth.store,
      logger: silentLogger(),
      intervalMs: 200,
    });
    try {
      await expectRejectedWithin(client.token, 2_000);
    } finally {
      await reconciliation.stop();
    }
  });

  it("answers 503 (never a silent 200) while a service has not loaded the revocation list", async () => {
    const client = await clientWithToken("unknown status");
    const config = {
      NATS_SERVERS: [`nats://127.0.0.1:${await unusedPort()}`],
      NATS_NAMESPACE: auth.config.NATS_NAMESPACE,
      REVOCATION_MAX_STALENESS_MS: 60_000,
    };
    const blindFeed = startRevocationFeed({
      config,
      name: "blind-test",
      logger: silentLogger(),
      retryDelayMs: 100,
    });
    const blind = await startApp(resourceApp(blindFeed.view));
    try {
      const res = await fetchJson<{ error: { code: string } }>(`${blind.baseUrl}/v1/vacancies`, {
        headers: { authorization: `Bearer ${client.token}` },
      });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe("SERVICE_UNAVAILABLE");
      await expect(blindFeed.readiness.check()).rejects.toThrow(/not been loaded/);
    } finally {
      await blind.close();
      await blindFeed.stop();
    }
  });
});
