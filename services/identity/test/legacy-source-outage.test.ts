import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTempPgDatabase,
  spawnServiceProcess,
  TcpProxy,
  testEnv,
  unusedPort,
  waitFor,
  type ServiceProcess,
  type TempDatabase,
} from "@svc/testing";
import { applicationBody, person, startHarness, type Harness } from "./support/harness.ts";

/**
 * POST /v1/applications asks the real vacancies process (its main.ts) whether the vacancy exists;
 * that process reads the legacy MySQL database through a proxy the test pauses (a database that
 * hangs) and then closes (one that refuses connections). Either way the application's 503 names
 * the real cause, LEGACY_SOURCE_UNAVAILABLE, not the vacancies service.
 */
const VACANCIES_ENTRY = fileURLToPath(new URL("../../vacancies/src/main.ts", import.meta.url));
const LOOKUP_TIMEOUT_MS = 1_000;
const LEGACY_TIMEOUT_MS = 5_000;

let h: Harness;
let vacanciesDb: TempDatabase;
let legacy: TcpProxy;
let vacancies: ServiceProcess;

beforeAll(async () => {
  [h, vacanciesDb] = await Promise.all([
    startHarness({ vacancyTimeoutMs: LOOKUP_TIMEOUT_MS }),
    createTempPgDatabase("vac_outage"),
  ]);
  // The real vacancies service answers instead of the harness's stand-in.
  await h.vacancies.stop();
  const mysql = new URL(testEnv.TEST_MYSQL_URL);
  legacy = await TcpProxy.start({ host: mysql.hostname, port: Number(mysql.port || 3306) });
  legacy.pause();
  const internalPort = await unusedPort();
  vacancies = spawnServiceProcess(VACANCIES_ENTRY, {
    PORT: "0",
    INTERNAL_PORT: String(internalPort),
    LOG_LEVEL: "warn",
    MIGRATE_ON_START: "true",
    DATABASE_URL: vacanciesDb.url,
    LEGACY_DATABASE_URL: `mysql://root@127.0.0.1:${legacy.port}/legacy_outage`,
    // Longer than identity's wait: only the responder's own bound can name the cause in time.
    LEGACY_CONNECT_TIMEOUT_MS: String(LEGACY_TIMEOUT_MS),
    LEGACY_QUERY_TIMEOUT_MS: String(LEGACY_TIMEOUT_MS),
    NATS_SERVERS: testEnv.TEST_NATS_URL,
    NATS_NAMESPACE: h.namespace,
    AUTH_JWKS_URL: "http://127.0.0.1:9/.well-known/jwks.json",
  });
  await waitFor(
    `vacancies up (output: ${vacancies.output().slice(-2_000)})`,
    async () =>
      (await fetch(`http://127.0.0.1:${internalPort}/livez`).catch(() => null))?.status === 200,
    30_000,
  );
}, 60_000);

afterAll(async () => {
  await vacancies?.kill();
  await legacy?.close();
  await vacanciesDb?.drop();
  await h?.close();
});

async function apply(): Promise<{
  status: number;
  code: string;
  retryAfter: string | null;
  ms: number;
}> {
  const started = performance.now();
  const res = await h.post("/v1/applications", applicationBody(randomUUID(), person()));
  return {
    status: res.status,
    code: res.body.error?.code,
    retryAfter: res.headers.get("retry-after"),
    ms: performance.now() - started,
  };
}

const LEGACY_UNAVAILABLE = { status: 503, code: "LEGACY_SOURCE_UNAVAILABLE", retryAfter: "5" };

describe("POST /v1/applications while the legacy database is down", () => {
  it("answers 503 LEGACY_SOURCE_UNAVAILABLE within its wait when the legacy database hangs", async () => {
    const answer = await apply();
    expect(answer).toMatchObject(LEGACY_UNAVAILABLE);
    // Identity gives up after LOOKUP_TIMEOUT_MS with SERVICE_UNAVAILABLE: the code above can only
    // come from the vacancies service answering first, long before its own legacy timeout.
    expect(answer.ms).toBeLessThan(LEGACY_TIMEOUT_MS);
  });

  it("answers 503 LEGACY_SOURCE_UNAVAILABLE at once when the legacy database refuses connections", async () => {
    await legacy.close();
    const answer = await apply();
    expect(answer).toMatchObject(LEGACY_UNAVAILABLE);
    expect(answer.ms).toBeLessThan(LOOKUP_TIMEOUT_MS);
  });

  it("still answers SERVICE_UNAVAILABLE when the vacancies service itself is gone", async () => {
    await vacancies.kill();
    const answer = await apply();
    expect(answer).toMatchObject({ status: 503, code: "SERVICE_UNAVAILABLE" });
  });
});
