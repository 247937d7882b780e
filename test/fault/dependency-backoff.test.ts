/**
 * A dependency outage under a backlog: the real dispatcher process has 1,000 deliveries waiting
 * in its stream while its (private) PostgreSQL is stopped for 20 s. Its consumer must back off
 * instead of spinning through the backlog: few handler calls, fewer than 50 log lines for the
 * whole outage (one warning when it starts, one line when it ends), the failures counted on
 * /metrics, and every delivery made once PostgreSQL is back.
 */
import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEvent } from "@svc/events";
import { createDrizzle, createPgPool, runMigrations } from "@svc/db";
import {
  connectNats,
  deliveriesStreamConfig,
  drainNats,
  ensureStream,
  jetstream,
  jetstreamManager,
  names,
  type NatsConnection,
} from "@svc/messaging";
import {
  createTestCa,
  silentLogger,
  startPrivatePostgres,
  testEnv,
  unusedPort,
  type PrivatePostgres,
  type TestCa,
} from "@svc/testing";
import { sampleValue } from "@svc/telemetry";
import { MIGRATIONS_FOLDER } from "../../services/webhooks/src/store/migrations.ts";
import * as schema from "../../services/webhooks/src/store/schema.ts";
import { PgDispatchStore } from "../../services/webhooks/src/store/pg-dispatch-store.ts";
import { PgSubscriptionStore } from "../../services/webhooks/src/store/pg-subscription-store.ts";
import { createSecretBox } from "../../services/webhooks/src/store/secret-box.ts";
import { generateSecret } from "../../services/webhooks/src/domain/signing.ts";
import { createNatsDeliveryQueue } from "../../services/webhooks/src/messaging/nats-delivery-queue.ts";
import type { DeliveryMessage } from "../../services/webhooks/src/domain/model.ts";
import { spawnDispatcher } from "../../services/webhooks/test/support/dispatcher-process.ts";
import { startReceiver, type Receiver } from "../../services/webhooks/test/support/receiver.ts";
import { sleep, waitUntil } from "./support/checks.ts";

const EVENTS = 125;
const SUBSCRIPTIONS = 8;
const DELIVERIES = EVENTS * SUBSCRIPTIONS;
const OUTAGE_MS = 20_000;
const SECRET_KEY = randomBytes(32).toString("base64");
const namespace = `dep${randomBytes(4).toString("hex")}`;
const n = names(namespace);

let postgres: PrivatePostgres;
let pool: pg.Pool;
let nc: NatsConnection;
let ca: TestCa;
let receiver: Receiver;
let dispatcher: ReturnType<typeof spawnDispatcher> | undefined;

beforeAll(async () => {
  postgres = await startPrivatePostgres();
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query("CREATE DATABASE integration");
  await admin.end();
  pool = createPgPool({
    url: postgres.urlFor("integration"),
    schema: "webhooks",
    applicationName: "dependency-backoff-test",
    max: 8,
  });
  await runMigrations(pool, { schema: "webhooks", migrationsFolder: MIGRATIONS_FOLDER });
  nc = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: "dependency-backoff-test",
    logger: silentLogger(),
  });
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
});

afterAll(async () => {
  if (dispatcher && dispatcher.exitCode === null) {
    dispatcher.kill("SIGTERM");
    await new Promise((r) => dispatcher!.once("exit", r));
  }
  const jsm = await jetstreamManager(nc).catch(() => undefined);
  for (const stream of [n.eventsStream, n.deliveriesStream])
    await jsm?.streams.delete(stream).catch(() => false);
  await drainNats(nc).catch(() => undefined);
  await pool?.end().catch(() => undefined);
  await postgres?.cleanup();
  await receiver?.close();
  ca?.dispose();
});

/** Subscriptions and their delivery records, as the API and the fan-out write them. */
async function recordBacklog(): Promise<{ paths: string[]; messages: DeliveryMessage[] }> {
  const subscriptions = new PgSubscriptionStore(createDrizzle(pool, schema));
  const box = createSecretBox(SECRET_KEY);
  const paths: string[] = [];
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const path = `/outage/${i}`;
    const id = randomUUID();
    const secret = generateSecret();
    await subscriptions.insert({
      id,
      ownerClientId: "client-outage",
      url: receiver.url(path),
      eventTypes: ["vacancy.updated"],
      secretSealed: box.seal(secret, id),
      now: new Date(),
    });
    receiver.setSecrets(path, [secret]);
    receiver.setBehaviour(path, () => ({ status: 204 }));
    paths.push(path);
  }
  const store = new PgDispatchStore(pool);
  const messages: DeliveryMessage[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const e = buildEvent({
      type: "vacancy.updated",
      entityId: `o${i}`,
      publicBaseUrl: "http://localhost:8080",
    });
    messages.push(
      ...(await store.fanOut(
        { eventUuid: e.event_uuid, eventType: e.event_type, body: JSON.stringify(e) },
        new Date(),
      )),
    );
  }
  return { paths, messages };
}

/** Every line the dispatcher writes, stdout and stderr, with the time it arrived. */
function collectLines(child: ReturnType<typeof spawnDispatcher>) {
  const lines: Array<{ at: number; text: string }> = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    let buffer = "";
    stream.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split("\n");
      buffer = parts.pop() ?? "";
      for (const text of parts) if (text.trim() !== "") lines.push({ at: Date.now(), text });
    });
  }
  return lines;
}

const msgOf = (text: string) => {
  try {
    return String((JSON.parse(text) as { msg?: unknown }).msg);
  } catch {
    return text.slice(0, 120);
  }
};

async function scrape(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

const FAILURES = "messaging_consumer_handler_failures_total";

describe("a PostgreSQL outage under a 1,000-delivery backlog", () => {
  it("backs off: few handler calls, fewer than 50 log lines, counted failures, and every delivery made afterwards", async () => {
    const { paths, messages } = await recordBacklog();
    expect(messages).toHaveLength(DELIVERIES);
    const internalPort = await unusedPort();
    dispatcher = spawnDispatcher({
      ENVIRONMENT: "sandbox",
      LOG_LEVEL: "info",
      DATABASE_URL: postgres.urlFor("integration"),
      NATS_SERVERS: testEnv.TEST_NATS_URL,
      NATS_NAMESPACE: namespace,
      // On loopback, as the local stack: WEBHOOK_ALLOW_LOOPBACK is refused anywhere else.
      PUBLIC_BASE_URL: "http://localhost:8080",
      INTERNAL_PORT: String(internalPort),
      WEBHOOK_SECRET_KEY: SECRET_KEY,
      WEBHOOK_ALLOW_LOOPBACK: "true",
      WEBHOOK_EXTRA_CA_FILE: ca.caFile,
    });
    const lines = collectLines(dispatcher);
    await waitUntil(
      "the dispatcher to be ready",
      async () =>
        (await fetch(`http://127.0.0.1:${internalPort}/readyz`).catch(() => undefined))?.ok,
      30_000,
      () => dispatcher!.output().slice(-2_000),
    );
    const jsm = await jetstreamManager(nc);
    await ensureStream(jsm, deliveriesStreamConfig(n));
    const consumerInfo = () => jsm.consumers.info(n.deliveriesStream, n.consumers.deliveries);
    const deliveredBefore = (await consumerInfo()).delivered.consumer_seq;

    // PostgreSQL goes away, then the backlog arrives: every delivery needs its record.
    await postgres.stop();
    const outageStart = Date.now();
    await createNatsDeliveryQueue(jetstream(nc), n).enqueue(messages);
    await sleep(OUTAGE_MS - (Date.now() - outageStart));
    const duringOutage = (await consumerInfo()).delivered.consumer_seq - deliveredBefore;
    const failuresInOutage = sampleValue(await scrape(internalPort), FAILURES, {
      messaging_consumer_group_name: n.consumers.deliveries,
    });
    expect(receiver.received().length).toBe(0);

    await postgres.start();
    const restartedAt = Date.now();
    const delivered = () =>
      new Set(
        receiver
          .received()
          .filter((r) => paths.includes(r.path))
          .map((r) => r.deliveryId),
      ).size;
    await waitUntil("the first delivery after the restart", () => delivered() > 0, 45_000);
    const firstAfterMs = Date.now() - restartedAt;
    await waitUntil(
      `all ${DELIVERIES} deliveries`,
      () => delivered() >= DELIVERIES,
      45_000,
      () => `${delivered()} delivered; ${dispatcher!.output().slice(-2_000)}`,
    );
    await waitUntil(
      "every delivery record to be succeeded",
      async () =>
        (
          await pool.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM webhooks.deliveries WHERE status = 'succeeded'",
          )
        ).rows[0]!.n === DELIVERIES,
      20_000,
    );
    const drainedAfterMs = Date.now() - restartedAt;
    const outageLines = lines.filter((l) => l.at >= outageStart).map((l) => msgOf(l.text));
    const tally = new Map<string, number>();
    for (const m of outageLines) tally.set(m, (tally.get(m) ?? 0) + 1);
    const failuresTotal = sampleValue(await scrape(internalPort), FAILURES, {
      messaging_consumer_group_name: n.consumers.deliveries,
    });
    console.info(
      [
        `dependency backoff: PostgreSQL down ${OUTAGE_MS} ms with ${DELIVERIES} deliveries pending`,
        `messages delivered to the dispatcher during the outage: ${duringOutage}; handler failures: ${failuresInOutage} (${failuresTotal} in all)`,
        `first delivery ${firstAfterMs} ms after the restart, all delivered and recorded after ${drainedAfterMs} ms`,
        `log lines from the outage to the drain: ${outageLines.length}: ${JSON.stringify(Object.fromEntries(tally))}`,
      ].join("\n"),
    );

    // No spinning: a fixed 1 s retry would have run every pending message about once a second.
    expect(failuresInOutage).toBeGreaterThan(0);
    expect(failuresInOutage).toBeLessThan(200);
    expect(duringOutage).toBeLessThan(500);
    // What the operator sees: one warning when it starts, one line when it ends, little else.
    expect(outageLines.length).toBeLessThan(50);
    expect(tally.get("message handler failing; backing off")).toBe(1);
    expect(tally.get("message handler recovered")).toBe(1);
    // Every delivery made, each once (the receiver saw no duplicate delivery ids).
    expect(receiver.received().filter((r) => paths.includes(r.path))).toHaveLength(DELIVERIES);
    expect(
      receiver.received().filter((r) => r.verifiedWith.length === 0 || !r.timestampOk),
    ).toEqual([]);
  }, 150_000);
});
