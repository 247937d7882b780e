import { randomBytes } from "node:crypto";
import type pg from "pg";
import type { EventPayload } from "@svc/events";
import { createLegacyDb, createPgPool, runMigrations, type LegacyDb } from "@svc/db";
import { openServerConnection } from "@svc/legacy";
import {
  connectNats,
  drainNats,
  jetstreamManager,
  names,
  type NatsConnection,
} from "@svc/messaging";
import {
  createTempPgDatabase,
  fetchJson,
  silentLogger,
  testEnv,
  type JsonResponse,
  type TempDatabase,
} from "@svc/testing";
import { localOfInstant } from "@svc/time";
import { createLeaderElector } from "@svc/leader";
import { PracticeChangeSource } from "../../src/workers/practice-change-source.ts";
import { startEventPipeline, type EventPipeline } from "@svc/events";
import { loadConfig, type Config } from "../../src/config.ts";
import { MIGRATIONS_FOLDER } from "../../src/store/migrations.ts";
import type { Practice } from "../../src/domain/practice.ts";
import { MysqlPracticeFeed } from "../../src/source/mysql-practice-feed.ts";
import { readEventStream, waitFor, type StreamReader } from "@svc/testing";
import { NOW, seedLegacy, startPractices, type Envelope, type PracticesApp } from "./harness.ts";

const SCHEMA = "practices";
type Writer = Awaited<ReturnType<typeof openServerConnection>>;

/**
 * The practices service's event pipeline as main.ts wires it (config → elector → detector +
 * relay), over a fixture legacy database, its own PostgreSQL database and NATS namespace, with the
 * read API on the same moving clock so `links.self` can be followed.
 */
export interface EventsWorld {
  config: Config;
  pool: pg.Pool;
  svc: PracticesApp;
  pipeline: EventPipeline;
  stream: StreamReader;
  /** The detector's and the API's clock: running, movable. */
  now(): number;
  advance(ms: number): void;
  /** The clock (plus `offsetMs`) as legacy wall-clock time (what the primary system stamps). */
  local(offsetMs?: number): string;
  /** Writes to the legacy database (the test speaks the legacy schema to change it). */
  write(sql: string, params?: unknown[]): Promise<void>;
  /** Runs `work`, waits until its events have reached the stream, returns exactly those. */
  step(work: () => Promise<unknown>): Promise<EventPayload[]>;
  incremental(): Promise<void>;
  sweep(): Promise<void>;
  /** GETs an event's links.self with a practices:read token. */
  follow(event: EventPayload): Promise<JsonResponse<Envelope<Practice>>>;
  close(): Promise<void>;
}

/** Databases, the app, NATS and a legacy writer: everything but the pipeline under test. */
interface Backends {
  pool: pg.Pool;
  svc: PracticesApp;
  config: Config;
  nc: NatsConnection;
  stream: StreamReader;
  legacy: LegacyDb;
  writer: Writer;
  clock: { now(): number; advance(ms: number): void };
  close(): Promise<void>;
}

async function openBackends(incrementalMs: number): Promise<Backends> {
  const [pgDb, legacyDb]: TempDatabase[] = await Promise.all([
    createTempPgDatabase("prac_ev"),
    seedLegacy(0),
  ]);
  const pool = createPgPool({
    url: pgDb!.url,
    schema: SCHEMA,
    applicationName: "practices-events-test",
  });
  await runMigrations(pool, { schema: SCHEMA, migrationsFolder: MIGRATIONS_FOLDER });
  const started = Date.now();
  let offsetMs = 0;
  const clock = {
    now: () => NOW + (Date.now() - started) + offsetMs,
    advance: (ms: number) => void (offsetMs += ms),
  };
  const svc = await startPractices({ legacyUrl: legacyDb!.url, now: clock.now });
  const namespace = `t${randomBytes(5).toString("hex")}`;
  const config = loadConfig({
    PUBLIC_BASE_URL: svc.app.baseUrl,
    NATS_NAMESPACE: namespace,
    DETECTOR_INCREMENTAL_MS: String(incrementalMs),
    DETECTOR_SWEEP_MS: String(7 * 86_400_000),
  });
  const nc: NatsConnection = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: "practices-events-test",
    logger: silentLogger(),
  });
  const stream = await readEventStream(nc, namespace);
  const writer: Writer = await openServerConnection(testEnv.TEST_MYSQL_URL);
  await writer.query(`USE \`${legacyDb!.name}\``);
  const legacy = createLegacyDb({ url: legacyDb!.url });
  const close = async () => {
    await stream.stop();
    await (
      await jetstreamManager(nc)
    ).streams
      .delete(names(namespace).eventsStream)
      .catch(() => undefined);
    await drainNats(nc);
    await writer.end();
    await legacy.close();
    await svc.close();
    await pool.end();
    await Promise.all([pgDb!.drop(), legacyDb!.drop()]);
  };
  return { pool, svc, config, nc, stream, legacy, writer, clock, close };
}

export async function startEventsWorld(options: { incrementalMs: number }): Promise<EventsWorld> {
  const b = await openBackends(options.incrementalMs);
  const { pool, svc, config, stream, writer, clock } = b;
  const logger = silentLogger();
  // A small page size, so the fixture set (about 60 practices) spans several pages of each read.
  const source = new PracticeChangeSource(new MysqlPracticeFeed(b.legacy), { pageSize: 7 });
  const elector = await createLeaderElector(config, {
    pool,
    logger,
    name: "practices-change-detector",
  });
  const pipeline = await startEventPipeline({
    settings: config,
    schema: SCHEMA,
    pool,
    nc: b.nc,
    logger,
    source,
    elector,
    now: clock.now,
  });
  await waitFor("the detector to lead", () => pipeline.detector.isLeader());
  const pass = async (kind: "runIncremental" | "runSweep") => {
    if ((await pipeline.detector[kind]()) === null)
      throw new Error("this replica is not the leader");
  };
  return {
    config,
    pool,
    svc,
    pipeline,
    stream,
    now: clock.now,
    advance: clock.advance,
    local: (offset = 0) => localOfInstant(clock.now() + offset, config.TIME_ZONE),
    write: async (sql, params = []) => void (await writer.query(sql, params)),
    async step(work) {
      const mark = stream.received.length;
      await work();
      await stream.settle(pool, SCHEMA);
      return stream.received.slice(mark);
    },
    incremental: () => pass("runIncremental"),
    sweep: () => pass("runSweep"),
    follow: async (event) => {
      const token = await svc.issuer.mint({ scope: "practices:read" });
      return fetchJson(event.links.self, {
        headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      });
    },
    async close() {
      await pipeline.stop();
      await b.close();
    },
  };
}

/** "<event type> <entity id>" per event, sorted, for exact comparisons. */
export const summary = (events: EventPayload[]): string[] =>
  events.map((e) => `${e.event_type} ${e.entity.id}`).sort();
