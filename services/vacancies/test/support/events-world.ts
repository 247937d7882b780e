import { randomBytes, randomUUID } from "node:crypto";
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
import { startEventPipeline, type EventPipeline } from "@svc/events";
import { VacancyChangeSource } from "../../src/workers/vacancy-change-source.ts";
import { loadConfig, type Config } from "../../src/config.ts";
import { MIGRATIONS_FOLDER } from "../../src/store/migrations.ts";
import { MysqlVacancyFeed } from "../../src/source/mysql-vacancy-feed.ts";
import { readEventStream, waitFor, type StreamReader } from "@svc/testing";
import {
  NOON_ON_TODAY,
  seededLegacyDatabase,
  startVacancies,
  type Envelope,
  type RunningVacancies,
} from "./harness.ts";

const SCHEMA = "vacancies";
const DAY_MS = 86_400_000;
type Writer = Awaited<ReturnType<typeof openServerConnection>>;
/** Legacy columns a test sets on a vacancy row (the test speaks the legacy schema to write it). */
export type VacancyColumns = Record<string, string | number | null>;

/**
 * The vacancies service's event pipeline as main.ts wires it (config → elector → detector +
 * relay), over a fixture legacy database, its own PostgreSQL database and NATS namespace, with
 * the read API on the same moving clock so `links.self` can be followed.
 */
export interface EventsWorld {
  config: Config;
  pool: pg.Pool;
  run: RunningVacancies;
  pipeline: EventPipeline;
  stream: StreamReader;
  /** The detector's and the API's clock: noon on the fixtures' "today", running, movable. */
  now(): number;
  advance(ms: number): void;
  /** The clock (plus `offsetMs`) as legacy wall-clock time (what the primary system stamps). */
  local(offsetMs?: number): string;
  insert(columns?: VacancyColumns): Promise<string>;
  update(uuid: string, columns: VacancyColumns): Promise<void>;
  write(sql: string, params?: unknown[]): Promise<void>;
  /** Runs `work`, waits until its events have reached the stream, returns exactly those. */
  step(work: () => Promise<unknown>): Promise<EventPayload[]>;
  incremental(): Promise<void>;
  sweep(): Promise<void>;
  /** GETs an event's links.self with a vacancies:read token. */
  follow(
    event: EventPayload,
  ): Promise<JsonResponse<Envelope<{ uuid: string; title: string | null; published: boolean }>>>;
  close(): Promise<void>;
}

/** Databases, the app, NATS and a legacy writer: everything but the pipeline under test. */
interface Backends {
  pool: pg.Pool;
  run: RunningVacancies;
  config: Config;
  nc: NatsConnection;
  stream: StreamReader;
  legacy: LegacyDb;
  writer: Writer;
  clock: { now(): number; advance(ms: number): void };
  close(): Promise<void>;
}

async function openBackends(incrementalMs: number | undefined): Promise<Backends> {
  const [pgDb, legacyDb]: TempDatabase[] = await Promise.all([
    createTempPgDatabase("vac_ev"),
    seededLegacyDatabase(0),
  ]);
  const pool = createPgPool({
    url: pgDb!.url,
    schema: SCHEMA,
    applicationName: "vacancies-events-test",
  });
  await runMigrations(pool, { schema: SCHEMA, migrationsFolder: MIGRATIONS_FOLDER });
  const started = Date.now();
  let offsetMs = 0;
  const clock = {
    now: () => NOON_ON_TODAY + (Date.now() - started) + offsetMs,
    advance: (ms: number) => void (offsetMs += ms),
  };
  const run = await startVacancies({ legacyUrl: legacyDb!.url, now: clock.now });
  const namespace = `t${randomBytes(5).toString("hex")}`;
  const config = loadConfig({
    PUBLIC_BASE_URL: run.app.baseUrl,
    NATS_NAMESPACE: namespace,
    ...(incrementalMs === undefined ? {} : { DETECTOR_INCREMENTAL_MS: String(incrementalMs) }),
    DETECTOR_SWEEP_MS: String(7 * DAY_MS),
  });
  const nc: NatsConnection = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: "vacancies-events-test",
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
    await run.close();
    await pool.end();
    await Promise.all([pgDb!.drop(), legacyDb!.drop()]);
  };
  return { pool, run, config, nc, stream, legacy, writer, clock, close };
}

/** `incrementalMs`: DETECTOR_INCREMENTAL_MS; the configuration's default when left out. */
export async function startEventsWorld(
  options: { incrementalMs?: number } = {},
): Promise<EventsWorld> {
  const b = await openBackends(options.incrementalMs);
  const { pool, run, config, stream, writer, clock } = b;
  const logger = silentLogger();
  // A small page size, so the fixture set (about 45 vacancies) spans several pages of each read.
  const source = new VacancyChangeSource(new MysqlVacancyFeed(b.legacy, config.TIME_ZONE), {
    pageSize: 7,
  });
  const elector = await createLeaderElector(config, {
    pool,
    logger,
    name: "vacancies-change-detector",
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
  const local = (offset = 0) => localOfInstant(clock.now() + offset, config.TIME_ZONE);
  const pass = async (kind: "runIncremental" | "runSweep") => {
    if ((await pipeline.detector[kind]()) === null)
      throw new Error("this replica is not the leader");
  };
  return {
    config,
    pool,
    run,
    pipeline,
    stream,
    local,
    now: clock.now,
    advance: clock.advance,
    async insert(columns = {}) {
      const uuid = randomUUID();
      const row = {
        uuid,
        kop_publiek: `Vacature ${uuid.slice(0, 8)}`,
        taal: "nl",
        status: 2,
        zichtbaar: 1,
        aangemaakt_op: local(-DAY_MS),
        gewijzigd_op: local(),
        ...columns,
      };
      await writer.query("INSERT INTO tbl_vacature SET ?", [row]);
      return uuid;
    },
    update: async (uuid, columns) =>
      void (await writer.query("UPDATE tbl_vacature SET ? WHERE uuid = ?", [columns, uuid])),
    write: async (sql, params = []) => void (await writer.query(sql, params)),
    async step(work) {
      const mark = stream.received.length;
      await work();
      await stream.settle(pool, SCHEMA);
      return stream.received.slice(mark);
    },
    incremental: () => pass("runIncremental"),
    sweep: () => pass("runSweep"),
    follow: async (event) =>
      fetchJson(event.links.self, {
        headers: { authorization: `Bearer ${await run.token()}`, accept: "application/json" },
      }),
    async close() {
      await pipeline.stop();
      await b.close();
    },
  };
}

/** "<event type> <entity id>" per event, for exact comparisons. */
export const summary = (events: EventPayload[]): string[] =>
  events.map((e) => `${e.event_type} ${e.entity.id}`).sort();
