import { drizzle } from "drizzle-orm/node-postgres";
import { pgSchema } from "drizzle-orm/pg-core";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drainNats, names } from "@svc/messaging";
import type { JetStreamClient, JetStreamManager, NatsConnection } from "@svc/messaging";
import { createTempPgDatabase, testEnv } from "@svc/testing";
import type { TempDatabase } from "@svc/testing";
import { buildEvent, enqueueEvents, outboxTable, startRelay } from "../src/index.ts";
import {
  connectForTest,
  deleteNamespaceStreams,
  readStream,
  recordingLogger,
  sleep,
  testNamespace,
  waitFor,
} from "./support/nats.ts";
import { enqueueMany, freshSchema, pendingCount } from "./support/outbox-fixtures.ts";
import { testPool } from "./support/pg.ts";

const TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const namespaces: string[] = [];
let database: TempDatabase;
let pool: pg.Pool;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;

beforeAll(async () => {
  database = await createTempPgDatabase("events");
  pool = testPool(database.url);
  ({ nc, js, jsm } = await connectForTest(testEnv.TEST_NATS_URL, "events-relay-test"));
});

afterAll(async () => {
  for (const ns of namespaces) await deleteNamespaceStreams(jsm, ns);
  await drainNats(nc, { timeoutMs: 2_000 });
  await pool.end();
  await database.drop();
});

async function setup() {
  const ns = testNamespace();
  namespaces.push(ns);
  return { schema: await freshSchema(pool), n: names(ns), logger: recordingLogger() };
}

describe("outbox relay", () => {
  it("publishes rows written in a transaction once, with Nats-Msg-Id = event_uuid and the stored trace context", async () => {
    const { schema, n, logger } = await setup();
    const outbox = outboxTable(pgSchema(schema));
    const traced = [0, 1].map((i) =>
      buildEvent({
        type: "vacancy.created",
        entityId: `v${i}`,
        publicBaseUrl: "https://api.example.test",
      }),
    );
    const untraced = buildEvent({
      type: "practice.deleted",
      entityId: "p1",
      publicBaseUrl: "https://api.example.test",
    });
    await drizzle(pool).transaction((tx) =>
      enqueueEvents(tx, outbox, traced, { traceparent: TRACEPARENT, tracestate: "vendor=abc" }),
    );
    await enqueueEvents(drizzle(pool), outbox, [untraced]);

    const relay = startRelay({ pool, schema, js, jsm, names: n, logger, autoStart: false });
    expect(await relay.runOnce()).toBe(3);
    expect(await relay.runOnce()).toBe(0);

    const stored = await readStream(js, jsm, n.eventsStream);
    expect(stored).toHaveLength(3);
    for (const event of [...traced, untraced]) {
      const copies = stored.filter((m) => m.msgId === event.event_uuid);
      expect(copies).toHaveLength(1);
      expect(copies[0]?.subject).toBe(n.eventSubject(event.event_type));
      expect(copies[0]?.data).toEqual(event);
    }
    expect(
      stored.filter((m) => m.traceparent === TRACEPARENT && m.tracestate === "vendor=abc"),
    ).toHaveLength(2);
    expect(stored.find((m) => m.msgId === untraced.event_uuid)?.traceparent).toBeUndefined();
    expect(await pendingCount(pool, schema)).toBe(0);
  });

  it("creates the events stream with file storage, limits retention, a 2 h duplicate window and 7 days max age", async () => {
    const { schema, n, logger } = await setup();
    await startRelay({ pool, schema, js, jsm, names: n, logger, autoStart: false }).runOnce();
    const { config } = await jsm.streams.info(n.eventsStream);
    expect(config).toMatchObject({
      storage: "file",
      retention: "limits",
      subjects: [n.eventsWildcard],
    });
    expect(config.duplicate_window).toBe(2 * 3_600 * 1e9);
    expect(config.max_age).toBe(7 * 86_400 * 1e9);
  });

  it("two relays running at once on one outbox publish each event exactly once", async () => {
    const { schema, n, logger } = await setup();
    const events = await enqueueMany(pool, schema, 2_000);
    const options = {
      pool,
      schema,
      js,
      jsm,
      names: n,
      logger,
      batchSize: 100,
      pollMs: 10,
      afterPublish: () => sleep(5),
    };
    const relays = [startRelay(options), startRelay(options)];
    await waitFor("every row sent", async () => (await pendingCount(pool, schema)) === 0, 20_000);
    await Promise.all(relays.map((r) => r.stop()));

    const [a, b] = relays.map((r) => r.stats());
    // No row published by both.
    expect((a?.published ?? 0) + (b?.published ?? 0)).toBe(events.length);
    expect([a?.duplicates, b?.duplicates]).toEqual([0, 0]);
    expect(a?.published).toBeGreaterThan(0); // both really worked
    expect(b?.published).toBeGreaterThan(0);
    expect((await jsm.streams.info(n.eventsStream)).state.messages).toBe(events.length);
  });

  it("wake() publishes rows written during the pause between polls at once, not at the next poll", async () => {
    const { schema, n, logger } = await setup();
    // One row sent by the first poll; the relay then pauses for 10 minutes.
    await enqueueMany(pool, schema, 1);
    const relay = startRelay({ pool, schema, js, jsm, names: n, logger, pollMs: 600_000 });
    try {
      await waitFor("the first poll", async () => (await pendingCount(pool, schema)) === 0, 20_000);
      await sleep(200);
      await enqueueMany(pool, schema, 3);
      relay.wake();
      await waitFor(
        "the woken relay",
        async () => (await pendingCount(pool, schema)) === 0,
        15_000,
      );
      expect(relay.stats().published).toBe(4);
    } finally {
      await relay.stop();
    }
  });

  it("a relay failing between publish and mark-as-sent leaves the rows pending; the re-publish is absorbed as a duplicate", async () => {
    const { schema, n, logger } = await setup();
    const events = await enqueueMany(pool, schema, 50);
    const crashing = startRelay({
      pool,
      schema,
      js,
      jsm,
      names: n,
      logger,
      autoStart: false,
      afterPublish: () => {
        throw new Error("crash before marking");
      },
    });
    await expect(crashing.runOnce()).rejects.toThrow("crash before marking");
    expect(await pendingCount(pool, schema)).toBe(50);

    const restarted = startRelay({ pool, schema, js, jsm, names: n, logger, autoStart: false });
    expect(await restarted.runOnce()).toBe(50);
    expect(restarted.stats().duplicates).toBe(50);
    const ids = (await readStream(js, jsm, n.eventsStream)).map((m) => m.msgId).sort();
    expect(ids).toEqual(events.map((e) => e.event_uuid).sort());
  });

  it("publishes the other rows when one has an event type that makes no subject, and reports that row once", async () => {
    const { schema, n, logger } = await setup();
    const good = await enqueueMany(pool, schema, 3);
    const bad = buildEvent({
      type: "vacancy.updated",
      entityId: "x",
      publicBaseUrl: "https://api.example.test",
    });
    await pool.query(
      `INSERT INTO "${schema}".outbox (event_uuid, event_type, payload) VALUES ($1, 'vacancy updated!', $2)`,
      [bad.event_uuid, bad],
    );
    const relay = startRelay({ pool, schema, js, jsm, names: n, logger, autoStart: false });
    expect(await relay.runOnce()).toBe(3);
    await relay.runOnce();
    expect(await pendingCount(pool, schema)).toBe(1);
    expect(logger.entries.filter((e) => e.level === "error")).toEqual([
      expect.objectContaining({ obj: expect.objectContaining({ eventUuids: [bad.event_uuid] }) }),
    ]);
    expect((await readStream(js, jsm, n.eventsStream)).map((m) => m.msgId).sort()).toEqual(
      good.map((e) => e.event_uuid).sort(),
    );
  });

  it("pruning deletes only sent rows older than the retention, in bounded batches", async () => {
    const { schema, n, logger } = await setup();
    await enqueueMany(pool, schema, 9);
    const ids = (
      await pool.query<{ id: string }>(`SELECT id FROM "${schema}".outbox ORDER BY id`)
    ).rows.map((r) => r.id);
    const set = (from: number, to: number, sql: string) =>
      pool.query(`UPDATE "${schema}".outbox SET ${sql} WHERE id = ANY($1::bigint[])`, [
        ids.slice(from, to),
      ]);
    await set(0, 5, "created_at = now() - interval '9 days', sent_at = now() - interval '8 days'");
    await set(5, 7, "created_at = now() - interval '2 days', sent_at = now() - interval '1 day'");
    await set(7, 9, "created_at = now() - interval '9 days'"); // old but never sent

    const relay = startRelay({
      pool,
      schema,
      js,
      jsm,
      names: n,
      logger,
      autoStart: false,
      retentionMs: 7 * 86_400_000,
      pruneBatchSize: 2,
    });
    expect(await relay.prune()).toBe(5);
    const left = await pool.query<{ id: string }>(`SELECT id FROM "${schema}".outbox ORDER BY id`);
    expect(left.rows.map((r) => r.id)).toEqual(ids.slice(5));
  });
});
