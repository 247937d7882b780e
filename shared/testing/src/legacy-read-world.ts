import { randomBytes } from "node:crypto";
import type pg from "pg";
import { createConnection } from "mysql2/promise";
import { expect } from "vitest";
import { createLegacyDb, createPgPool, runMigrations, type LegacyDb } from "@svc/db";
import {
  startEventPipeline,
  type ChangeSource,
  type EventPayload,
  type EventPipeline,
  type EventSettings,
} from "@svc/events";
import { createLeaderElector, type ElectionSettings } from "@svc/leader";
import { connectNats, drainNats, jetstreamManager, names } from "@svc/messaging";
import { localOfInstant } from "@svc/time";
import { testEnv } from "./config.ts";
import { createTempPgDatabase, type TempDatabase } from "./databases.ts";
import { readEventStream, type StreamReader } from "./event-stream.ts";
import { waitFor } from "./wait.ts";
import { fetchJson, silentLogger, type JsonResponse, type StartedApp } from "./http.ts";

const DAY_MS = 86_400_000;

/** A service's read API as its test harness starts it. */
export interface RunningReadApi {
  app: StartedApp;
  close(): Promise<void>;
}

/** What a service that reads the legacy database and detects its changes brings to the world. */
export interface LegacyReadService<Config extends EventSettings & ElectionSettings, Api> {
  /**
   * The service's name: its PostgreSQL schema, and the name of its change source and of its test
   * connections.
   */
  service: string;
  migrationsFolder: string;
  /** A fresh legacy database with the service's fixtures. */
  legacyDatabase(): Promise<TempDatabase>;
  /** The instant the world's clock starts at. */
  start: number;
  startApi(options: { legacyUrl: string; now: () => number }): Promise<Api>;
  loadConfig(env: Record<string, string>): Config;
  /** The change source main.ts wires, over the legacy database. */
  changeSource(legacy: LegacyDb, config: Config): ChangeSource;
  /** A bearer token for the service's read scope. */
  readToken(api: Api): Promise<string>;
}

/** DETECTOR_INCREMENTAL_MS and DETECTOR_SWEEP_MS; left out: the configuration's default, a 7-day sweep. */
export type DetectorSchedule = { incrementalMs?: number; sweepMs?: number };

/**
 * A service's event pipeline as its main.ts wires it (config → elector → detector + relay), over
 * a fixture legacy database, its own PostgreSQL database and NATS namespace, with the read API on
 * the same moving clock so `links.self` can be followed.
 */
export interface LegacyReadWorld<Config, Api, Body> {
  /** The service's PostgreSQL schema (outbox, change_state, change_cursor). */
  schema: string;
  config: Config;
  pool: pg.Pool;
  api: Api;
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
  /** step(), with the clock just before and just after. */
  timedStep(
    work: () => Promise<unknown>,
  ): Promise<{ events: EventPayload[]; before: number; after: number }>;
  incremental(): Promise<void>;
  sweep(): Promise<void>;
  /** Waits until the detector has recorded its baseline and the stream has settled. */
  baseline(): Promise<void>;
  /**
   * Milliseconds from each of three legacy inserts (`insert` returns the new id) to its
   * `createdType` event in the stream, with no explicit pass: the detector's own schedule and the
   * relay's poll carry it.
   */
  timesToStream(insert: () => Promise<string>, createdType: string): Promise<number[]>;
  /** GETs an event's links.self with a read token. */
  follow(event: EventPayload): Promise<JsonResponse<Body>>;
  close(): Promise<void>;
}

export async function startLegacyReadWorld<
  Config extends EventSettings & ElectionSettings,
  Api extends RunningReadApi,
  Body,
>(
  spec: LegacyReadService<Config, Api>,
  schedule: DetectorSchedule = {},
): Promise<LegacyReadWorld<Config, Api, Body>> {
  const { incrementalMs, sweepMs = 7 * DAY_MS } = schedule;
  const schema = spec.service;
  const testName = `${spec.service}-events-test`;
  const [pgDb, legacyDb]: TempDatabase[] = await Promise.all([
    createTempPgDatabase(`${spec.service.slice(0, 4)}_ev`),
    spec.legacyDatabase(),
  ]);
  const pool = createPgPool({ url: pgDb!.url, schema, applicationName: testName });
  await runMigrations(pool, { schema, migrationsFolder: spec.migrationsFolder });
  const started = Date.now();
  let offsetMs = 0;
  const now = () => spec.start + (Date.now() - started) + offsetMs;
  const api = await spec.startApi({ legacyUrl: legacyDb!.url, now });
  const namespace = `t${randomBytes(5).toString("hex")}`;
  const config = spec.loadConfig({
    PUBLIC_BASE_URL: api.app.baseUrl,
    NATS_NAMESPACE: namespace,
    ...(incrementalMs === undefined ? {} : { DETECTOR_INCREMENTAL_MS: String(incrementalMs) }),
    DETECTOR_SWEEP_MS: String(sweepMs),
  });
  const logger = silentLogger();
  const nc = await connectNats({ servers: testEnv.TEST_NATS_URL, name: testName, logger });
  const stream = await readEventStream(nc, namespace);
  const writer = await createConnection({
    uri: legacyDb!.url,
    charset: "UTF8MB4_UNICODE_CI",
    dateStrings: true,
    supportBigNumbers: true,
  });
  const legacy = createLegacyDb({ url: legacyDb!.url });
  const elector = await createLeaderElector(config, {
    pool,
    logger,
    name: `${spec.service}-change-detector`,
  });
  const pipeline = await startEventPipeline({
    settings: config,
    schema,
    pool,
    nc,
    logger,
    source: spec.changeSource(legacy, config),
    elector,
    now,
  });
  await waitFor("the detector to lead", () => pipeline.detector.isLeader());
  const step = async (work: () => Promise<unknown>) => {
    const mark = stream.received.length;
    await work();
    await stream.settle(pool, schema);
    return stream.received.slice(mark);
  };
  const pass = async (kind: "runIncremental" | "runSweep") => {
    if ((await pipeline.detector[kind]()) === null)
      throw new Error("this replica is not the leader");
  };
  return {
    schema,
    config,
    pool,
    api,
    pipeline,
    stream,
    now,
    advance: (ms) => void (offsetMs += ms),
    local: (offset = 0) => localOfInstant(now() + offset, config.TIME_ZONE),
    write: async (sql, params = []) => void (await writer.query(sql, params)),
    step,
    async timedStep(work) {
      const before = now();
      const events = await step(work);
      return { events, before, after: now() };
    },
    incremental: () => pass("runIncremental"),
    sweep: () => pass("runSweep"),
    async baseline() {
      await waitFor(
        "the baseline",
        async () =>
          (await pool.query(`SELECT 1 FROM "${schema}".change_cursor WHERE source = $1`, [schema]))
            .rowCount === 1,
      );
      await stream.settle(pool, schema);
    },
    async timesToStream(insert, createdType) {
      const latencies: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const mark = stream.received.length;
        const id = await insert();
        const written = performance.now();
        await waitFor(
          "the created event",
          () =>
            stream.received
              .slice(mark)
              .some((e) => e.entity.id === id && e.event_type === createdType),
          5_000,
        );
        latencies.push(Math.round(performance.now() - written));
      }
      return latencies;
    },
    follow: async (event) =>
      fetchJson<Body>(event.links.self, {
        headers: {
          authorization: `Bearer ${await spec.readToken(api)}`,
          accept: "application/json",
        },
      }),
    async close() {
      await pipeline.stop();
      await stream.stop();
      await (
        await jetstreamManager(nc)
      ).streams
        .delete(names(namespace).eventsStream)
        .catch(() => undefined);
      await drainNats(nc);
      await writer.end();
      await legacy.close();
      await api.close();
      await pool.end();
      await Promise.all([pgDb!.drop(), legacyDb!.drop()]);
    },
  };
}

/** "<event type> <entity id>" per event, sorted, for exact comparisons. */
export const eventSummary = (events: EventPayload[]): string[] =>
  events.map((e) => `${e.event_type} ${e.entity.id}`).sort();

/** The event payload's fields, sorted. */
export const EVENT_PAYLOAD_FIELDS: readonly string[] = [
  "entity",
  "event_type",
  "event_uuid",
  "event_version",
  "links",
  "occurred_at",
];

/** The contract's event payload: exactly its six fields, with `links.self` at `path`. */
export function expectEventPayload(
  world: { config: { PUBLIC_BASE_URL: string } },
  event: EventPayload,
  expected: { type: string; entity: string; id: string; path: string },
): void {
  expect(Object.keys(event).sort()).toEqual(EVENT_PAYLOAD_FIELDS);
  expect(event).toEqual({
    event_uuid: expect.stringMatching(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    ),
    event_type: expected.type,
    event_version: 1,
    occurred_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/),
    entity: { type: expected.entity, id: expected.id },
    links: { self: `${world.config.PUBLIC_BASE_URL}${expected.path}` },
  });
}

/** Every row of the service's outbox reached the stream exactly once, and nothing else did. */
export async function expectEveryEventOnce(world: {
  schema: string;
  stream: StreamReader;
  pool: pg.Pool;
}): Promise<void> {
  const { schema } = world;
  await world.stream.settle(world.pool, schema);
  const outbox = await world.pool.query<{ event_uuid: string }>(
    `SELECT event_uuid FROM "${schema}".outbox`,
  );
  expect(world.stream.received.length).toBe(outbox.rowCount);
  expect([...world.stream.deliveries.values()].every((n) => n === 1)).toBe(true);
  expect([...world.stream.deliveries.keys()].sort()).toEqual(
    outbox.rows.map((r) => r.event_uuid).sort(),
  );
}
