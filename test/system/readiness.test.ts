// Readiness is what only this pod can fix: a shared dependency going away after start keeps the
// pods in the Service, so clients get the contract's 503 envelope instead of connection errors.
// The whole stack runs as `npm start` runs it, with the legacy database behind a TCP proxy the
// test freezes; the gateway stands in for the ingress.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchJson, TcpProxy, testEnv, waitFor } from "@svc/testing";
import { startPrivateStack, type PrivateStack } from "../support/private-stack.ts";

interface Readiness {
  status: string;
  checks: Array<{ name: string; ok: boolean; error?: string }>;
}

interface Envelope {
  success: boolean;
  error?: { code: string; message: string };
  meta?: { request_id: string };
}

const QUERY_TIMEOUT_MS = 1_500;
let proxy: TcpProxy;
let stack: PrivateStack;
let token: string;

beforeAll(async () => {
  const mysql = new URL(testEnv.TEST_MYSQL_URL);
  proxy = await TcpProxy.start({ host: mysql.hostname, port: Number(mysql.port || 3306) });
  const viaProxy = new URL(mysql);
  viaProxy.port = String(proxy.port);
  stack = await startPrivateStack({
    env: {
      MYSQL_URL: viaProxy.toString(),
      LEGACY_CONNECT_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
      LEGACY_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
    },
  });
  const basic = Buffer.from(
    `${stack.demoClient.clientId}:${stack.demoClient.clientSecret}`,
  ).toString("base64");
  const res = await fetchJson<{ access_token: string }>(`${stack.baseUrl}/oauth/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${basic}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials",
  });
  expect(res.status).toBe(200);
  token = res.body.access_token;
}, 180_000);

afterAll(async () => {
  proxy?.resume();
  await stack?.stop();
  await proxy?.close();
}, 60_000);

function internalPort(name: string): number {
  const port = stack.processes.find((p) => p.name === name)?.internalPort;
  if (!port) throw new Error(`no internal port for ${name}`);
  return port;
}

const readiness = (name: string) =>
  fetchJson<Readiness>(`http://127.0.0.1:${internalPort(name)}/readyz`);

const viaIngress = (path: string) =>
  fetchJson<Envelope>(`${stack.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${token}`, accept: "application/json" },
  });

describe("a shared dependency outage", () => {
  it(
    "keeps vacancies and practices ready (degraded) while their API answers 503 LEGACY_SOURCE_UNAVAILABLE through the ingress, and recovers without a restart",
    { timeout: 90_000 },
    async () => {
      for (const name of ["vacancies", "practices"]) {
        const ready = await readiness(name);
        expect(ready.status, name).toBe(200);
        expect(ready.body.status, name).toBe("ok");
      }
      expect((await viaIngress("/v1/vacancies?per_page=1")).status).toBe(200);
      const pidsBefore = await stack.childPids();

      proxy.pause();
      proxy.cut();
      try {
        for (const path of ["/v1/vacancies?per_page=1", "/v1/practices?per_page=1"]) {
          const started = Date.now();
          const res = await viaIngress(path);
          expect(res.status, path).toBe(503);
          expect(res.body.success, path).toBe(false);
          expect(res.body.error?.code, path).toBe("LEGACY_SOURCE_UNAVAILABLE");
          expect(res.body.meta?.request_id, path).toBeTruthy();
          expect(Date.now() - started, path).toBeLessThan(QUERY_TIMEOUT_MS * 2 + 2_000);
        }
        for (const name of ["vacancies", "practices"]) {
          // Every probe answers 200 at once; the failing check shows from the next run on.
          await waitFor(
            `${name} to report the legacy database down`,
            async () => {
              const started = Date.now();
              const ready = await readiness(name);
              expect(ready.status, name).toBe(200);
              expect(Date.now() - started, name).toBeLessThan(1_000);
              return ready.body.checks.some((c) => c.name === "legacy-database" && !c.ok);
            },
            QUERY_TIMEOUT_MS * 4,
          );
          expect((await readiness(name)).body.status, name).toBe("degraded");
        }
      } finally {
        proxy.resume();
      }

      await waitFor(
        "vacancies to read the legacy database again",
        async () => (await viaIngress("/v1/vacancies?per_page=1")).status === 200,
        20_000,
      );
      await waitFor(
        "vacancies to report the legacy database back",
        async () => (await readiness("vacancies")).body.status === "ok",
        QUERY_TIMEOUT_MS * 4,
      );
      expect(await stack.childPids()).toEqual(pidsBefore);
      expect(stack.crashes()).toEqual([]);
    },
  );
});
