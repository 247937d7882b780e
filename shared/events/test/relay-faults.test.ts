import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgPool } from "@svc/db";
import { drainNats, names } from "@svc/messaging";
import { createTempPgDatabase, TcpProxy, testEnv } from "@svc/testing";
import type { TempDatabase } from "@svc/testing";
import { startRelay } from "../src/index.ts";
import type { Relay } from "../src/index.ts";
import {
  connectForTest,
  deleteNamespaceStreams,
  readStream,
  recordingLogger,
  sleep,
  testNamespace,
  waitFor,
} from "./support/nats.ts";
import { startPrivateNatsServer } from "@svc/testing";
import type { PrivateNatsServer } from "@svc/testing";
import { enqueueMany, freshSchema, pendingCount } from "./support/outbox-fixtures.ts";
import { testPool } from "./support/pg.ts";

let database: TempDatabase;
let pool: pg.Pool;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  database = await createTempPgDatabase("events");
  pool = testPool(database.url);
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await pool.end();
  await database.drop();
});

async function sharedNats(name: string) {
  const namespace = testNamespace();
  const conn = await connectForTest(testEnv.TEST_NATS_URL, name);
  cleanups.push(async () => {
    await deleteNamespaceStreams(conn.jsm, namespace);
    await drainNats(conn.nc, { timeoutMs: 2_000 });
  });
  return { ...conn, namespace, n: names(namespace) };
}

function track(relay: Relay): Relay {
  cleanups.push(() => relay.stop());
  return relay;
}

describe("outbox relay under faults", () => {
  it("keeps rows pending while NATS is down and publishes all of them after it restarts", async () => {
    const server: PrivateNatsServer = await startPrivateNatsServer();
    cleanups.push(() => server.dispose());
    const { nc, js, jsm } = await connectForTest(server.url, "events-relay-nats-down");
    cleanups.push(() => drainNats(nc, { timeoutMs: 1_000 }));
    const n = names(testNamespace());
    const schema = await freshSchema(pool);
    const logger = recordingLogger();
    track(
      startRelay({
        pool,
        schema,
        js,
        jsm,
        names: n,
        logger,
        pollMs: 20,
        publishTimeoutMs: 500,
        maxBackoffMs: 400,
      }),
    );
    const before = await enqueueMany(pool, schema, 10);
    await waitFor("the first rows sent", async () => (await pendingCount(pool, schema)) === 0);
    await sleep(300); // let the server write them out before it is killed

    await server.kill();
    const during = await enqueueMany(pool, schema, 40);
    await sleep(1_500);
    expect(await pendingCount(pool, schema)).toBe(40);
    expect(
      logger.entries.some((e) => e.level === "warn" && e.msg.startsWith("outbox relay failed")),
    ).toBe(true);

    await server.restart();
    await waitFor(
      "every row sent after the restart",
      async () => (await pendingCount(pool, schema)) === 0,
      15_000,
    );
    const ids = (await readStream(js, jsm, n.eventsStream)).map((m) => m.msgId).sort();
    expect(ids).toEqual([...before, ...during].map((e) => e.event_uuid).sort());
  });

  it("recovers without a restart when its PostgreSQL connections are cut or frozen", async () => {
    const { js, jsm, n } = await sharedNats("events-relay-pg-faults");
    const schema = await freshSchema(pool);
    const target = new URL(testEnv.TEST_PG_URL);
    const proxy = await TcpProxy.start({
      host: target.hostname,
      port: Number(target.port || 5432),
    });
    cleanups.push(() => proxy.close());
    const proxied = new URL(database.url);
    proxied.host = `127.0.0.1:${proxy.port}`;
    const relayPool = createPgPool({
      url: proxied.toString(),
      schema,
      applicationName: "relay-test",
      connectTimeoutMs: 500,
      statementTimeoutMs: 700,
    });
    cleanups.push(() => relayPool.end());
    const logger = recordingLogger();
    const relay = track(
      startRelay({
        pool: relayPool,
        schema,
        js,
        jsm,
        names: n,
        logger,
        pollMs: 20,
        maxBackoffMs: 300,
      }),
    );
    const sentAll = () =>
      waitFor("every row sent", async () => (await pendingCount(pool, schema)) === 0, 10_000);

    await enqueueMany(pool, schema, 10);
    await sentAll();
    proxy.cut();
    await enqueueMany(pool, schema, 10);
    await sentAll();
    proxy.pause();
    await enqueueMany(pool, schema, 10);
    await sleep(2_500); // longer than the pool's query timeout (1.7 s): the frozen queries fail
    expect(await pendingCount(pool, schema)).toBe(10);
    proxy.resume();
    await sentAll();

    expect(relay.stats().failures).toBeGreaterThan(0);
    expect((await jsm.streams.info(n.eventsStream)).state.messages).toBe(30);
  });

  it("does not let a relay frozen mid-batch hold its rows: the server ends its session and a peer publishes them", async () => {
    const { js, jsm, n } = await sharedNats("events-relay-frozen");
    const schema = await freshSchema(pool);
    const events = await enqueueMany(pool, schema, 300);
    const target = new URL(testEnv.TEST_PG_URL);
    const proxy = await TcpProxy.start({
      host: target.hostname,
      port: Number(target.port || 5432),
    });
    cleanups.push(() => proxy.close());
    const proxied = new URL(database.url);
    proxied.host = `127.0.0.1:${proxy.port}`;
    const frozenPool = createPgPool({
      url: proxied.toString(),
      schema,
      applicationName: "relay-frozen",
      connectTimeoutMs: 500,
      statementTimeoutMs: 5_000,
    });
    cleanups.push(() => frozenPool.end());
    // Freezes its connection after publishing its first batch, before marking it sent.
    const frozen = startRelay({
      pool: frozenPool,
      schema,
      js,
      jsm,
      names: n,
      logger: recordingLogger(),
      batchSize: 100,
      concurrency: 1,
      publishTimeoutMs: 500,
      autoStart: false,
      afterPublish: () => proxy.pause(),
    });
    const stuck = frozen.runOnce().catch((err: unknown) => err);
    await waitFor(
      "the frozen batch to be published",
      async () =>
        (await jsm.streams.info(n.eventsStream).catch(() => null))?.state.messages === 100,
    );

    const peer = track(
      startRelay({ pool, schema, js, jsm, names: n, logger: recordingLogger(), pollMs: 20 }),
    );
    await waitFor(
      "the peer to publish every row, the frozen batch included",
      async () => (await pendingCount(pool, schema)) === 0,
      10_000,
    );
    expect(peer.stats().published).toBe(300);
    expect(peer.stats().duplicates).toBe(100);
    proxy.resume();
    expect(await stuck).toBeInstanceOf(Error); // its session was ended by the server
    const ids = (await readStream(js, jsm, n.eventsStream)).map((m) => m.msgId).sort();
    expect(ids).toEqual(events.map((e) => e.event_uuid).sort());
  });

  it("after a relay process is killed with SIGKILL mid-stream, every event reaches the stream at least once", async () => {
    const { js, jsm, n, namespace } = await sharedNats("events-relay-sigkill");
    const schema = await freshSchema(pool);
    const events = await enqueueMany(pool, schema, 3_000);
    const script = fileURLToPath(new URL("./support/relay-child.ts", import.meta.url));
    const config = JSON.stringify({
      pgUrl: database.url,
      schema,
      natsUrl: testEnv.TEST_NATS_URL,
      namespace,
    });
    const child = spawn(process.execPath, [script, config], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    cleanups.push(async () => child.kill("SIGKILL"));
    await waitFor(
      "the child relay to publish",
      async () => {
        const info = await jsm.streams.info(n.eventsStream).catch(() => null);
        return (info?.state.messages ?? 0) >= 500;
      },
      15_000,
    );
    child.kill("SIGKILL");
    await once(child, "exit");
    const pendingAfterKill = await pendingCount(pool, schema);
    expect(pendingAfterKill).toBeGreaterThan(0);

    const restarted = startRelay({
      pool,
      schema,
      js,
      jsm,
      names: n,
      logger: recordingLogger(),
      autoStart: false,
    });
    await restarted.runOnce();
    const ids = new Set((await readStream(js, jsm, n.eventsStream)).map((m) => m.msgId));
    expect(events.filter((e) => !ids.has(e.event_uuid))).toEqual([]);
    expect(await pendingCount(pool, schema)).toBe(0);
    console.info(
      `sigkill: ${pendingAfterKill} rows pending after the kill, ${restarted.stats().duplicates} of them already in the stream (absorbed)`,
    );
  });
});
