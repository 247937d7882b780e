import { randomBytes, randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgPool } from "@svc/db";
import { openServerConnection } from "@svc/legacy";
import {
  connectNats,
  drainNats,
  jetstreamManager,
  names,
  type NatsConnection,
} from "@svc/messaging";
import { createTempPgDatabase, silentLogger, testEnv, type TempDatabase } from "@svc/testing";
import { localOfInstant } from "@svc/time";
import {
  readEventStream,
  spawnServiceProcess,
  waitFor,
  type ServiceProcess,
  type StreamReader,
} from "@svc/testing";
import { seededLegacyDatabase } from "./support/harness.ts";

// The real entry point (main.ts) as a child process: the composition root starts the detector
// and the relay, and stops both before the pools close on SIGTERM.
const ENTRY = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const PUBLIC_BASE_URL = "https://api.example.test";

let pgDb: TempDatabase;
let legacyDb: TempDatabase;
let nc: NatsConnection;
let stream: StreamReader;
let service: ServiceProcess;
const namespace = `t${randomBytes(5).toString("hex")}`;
const pool = () =>
  createPgPool({ url: pgDb.url, schema: "vacancies", applicationName: "vacancies-main-test" });

beforeAll(async () => {
  [pgDb, legacyDb] = await Promise.all([createTempPgDatabase("vac_main"), seededLegacyDatabase(0)]);
  nc = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: "vacancies-main-test",
    logger: silentLogger(),
  });
  const env = {
    PORT: "0",
    INTERNAL_PORT: "0",
    LOG_LEVEL: "info",
    MIGRATE_ON_START: "true",
    PUBLIC_BASE_URL,
    DATABASE_URL: pgDb.url,
    LEGACY_DATABASE_URL: legacyDb.url,
    NATS_SERVERS: testEnv.TEST_NATS_URL,
    NATS_NAMESPACE: namespace,
    DETECTOR_INCREMENTAL_MS: "200",
    AUTH_JWKS_URL: "http://127.0.0.1:9/.well-known/jwks.json",
  };
  service = spawnServiceProcess(ENTRY, env);
});

afterAll(async () => {
  await service.kill();
  await stream?.stop();
  await (
    await jetstreamManager(nc)
  ).streams
    .delete(names(namespace).eventsStream)
    .catch(() => undefined);
  await drainNats(nc);
  await Promise.all([pgDb.drop(), legacyDb.drop()]);
});

describe("vacancies main.ts", () => {
  it(
    "records a baseline, publishes a legacy insert as vacancy.created, and shuts down cleanly",
    { timeout: 30_000 },
    async () => {
      const db = pool();
      try {
        const baseline = async () =>
          (await db.query("SELECT 1 FROM vacancies.change_cursor").catch(() => ({ rowCount: 0 })))
            .rowCount === 1;
        await waitFor(
          `the baseline (process output: ${service.output().slice(-2_000)})`,
          baseline,
          20_000,
        );
        stream = await readEventStream(nc, namespace);
        const uuid = randomUUID();
        const writer = await openServerConnection(testEnv.TEST_MYSQL_URL);
        try {
          const now = localOfInstant(Date.now(), "Europe/Brussels");
          await writer.query(`INSERT INTO \`${legacyDb.name}\`.tbl_vacature SET ?`, [
            { uuid, kop_publiek: "Tandarts", zichtbaar: 1, aangemaakt_op: now, gewijzigd_op: now },
          ]);
        } finally {
          await writer.end();
        }
        await waitFor("the created event", () => stream.received.length > 0, 5_000);
        expect(stream.received.map((e) => [e.event_type, e.entity.id, e.links.self])).toEqual([
          ["vacancy.created", uuid, `${PUBLIC_BASE_URL}/v1/vacancies/${uuid}`],
        ]);
      } finally {
        await db.end();
      }
      expect(await service.terminate()).toBe(0);
      expect(service.output()).toContain("shutdown complete");
      expect(service.output()).not.toMatch(/shutdown step (failed|timed out)/);
      expect(service.output()).not.toMatch(/"level":"(warn|error|fatal)"/);
    },
  );
});
