import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgPool } from "@svc/db";
import {
  connectNats,
  drainNats,
  jetstreamManager,
  names,
  type NatsConnection,
} from "@svc/messaging";
import { testEnv } from "./config.ts";
import { createTempPgDatabase, type TempDatabase } from "./databases.ts";
import { readEventStream, type StreamReader } from "./event-stream.ts";
import { waitFor } from "./wait.ts";
import { silentLogger } from "./http.ts";
import { spawnServiceProcess, type ServiceProcess } from "./service-process.ts";

/** A service whose entry point runs change detection over the legacy source (practices, vacancies). */
export interface ChangeDetectingProcess {
  /** The service's name, which is also its PostgreSQL schema. */
  service: string;
  /** Its entry point (src/main.ts). */
  entry: string;
  /** An empty legacy database with the service's tables. */
  legacyDatabase: () => Promise<TempDatabase>;
  /** Writes a new legacy record with this id, stamped with the source zone's present. */
  insert: (legacyDatabase: string, id: string) => Promise<void>;
  /** The event that record gives, and the path of its resource. */
  created: { eventType: string; path: string };
}

const PUBLIC_BASE_URL = "https://api.example.test";

/**
 * The real entry point as a child process: the composition root starts the detector and the
 * relay; a new legacy record becomes its created event; SIGTERM stops both before the pools close,
 * with no warning logged.
 */
export function describeChangeDetectingProcess(spec: ChangeDetectingProcess): void {
  let pgDb: TempDatabase;
  let legacyDb: TempDatabase;
  let nc: NatsConnection;
  let stream: StreamReader | undefined;
  let child: ServiceProcess;
  const namespace = `t${randomBytes(5).toString("hex")}`;
  const name = `${spec.service}-main-test`;

  beforeAll(async () => {
    [pgDb, legacyDb] = await Promise.all([
      createTempPgDatabase(`${spec.service.slice(0, 4)}_main`),
      spec.legacyDatabase(),
    ]);
    nc = await connectNats({ servers: testEnv.TEST_NATS_URL, name, logger: silentLogger() });
    child = spawnServiceProcess(spec.entry, {
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
    });
  });

  afterAll(async () => {
    await child.kill();
    await stream?.stop();
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(names(namespace).eventsStream).catch(() => undefined);
    await drainNats(nc);
    await Promise.all([pgDb.drop(), legacyDb.drop()]);
  });

  describe(`${spec.service} main.ts`, () => {
    it(
      `records a baseline, publishes a new legacy record as ${spec.created.eventType}, and shuts down cleanly`,
      { timeout: 30_000 },
      async () => {
        const db = createPgPool({ url: pgDb.url, schema: spec.service, applicationName: name });
        try {
          const cursor = `SELECT 1 FROM ${spec.service}.change_cursor`;
          const baseline = async () =>
            (await db.query(cursor).catch(() => ({ rowCount: 0 }))).rowCount === 1;
          await waitFor(
            `the baseline (process output: ${child.output().slice(-2_000)})`,
            baseline,
            20_000,
          );
          const events = await readEventStream(nc, namespace);
          stream = events;
          const id = randomUUID();
          await spec.insert(legacyDb.name, id);
          await waitFor("the created event", () => events.received.length > 0, 5_000);
          expect(events.received.map((e) => [e.event_type, e.entity.id, e.links.self])).toEqual([
            [spec.created.eventType, id, `${PUBLIC_BASE_URL}${spec.created.path}/${id}`],
          ]);
        } finally {
          await db.end();
        }
        expect(await child.terminate()).toBe(0);
        expect(child.output()).toContain("shutdown complete");
        expect(child.output()).not.toMatch(/shutdown step (failed|timed out)/);
        expect(child.output()).not.toMatch(/"level":"(warn|error|fatal)"/);
      },
    );
  });
}
