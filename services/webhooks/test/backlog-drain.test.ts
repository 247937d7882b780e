import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEvent } from "@svc/events";
import { deliveriesStreamConfig, ensureStream, jetstream, jetstreamManager } from "@svc/messaging";
import { createNatsDeliveryQueue } from "../src/messaging/nats-delivery-queue.ts";
import { PgDispatchStore } from "../src/store/pg-dispatch-store.ts";
import { startReceiver, type Receiver } from "./support/receiver.ts";
import { createTestCa, type TestCa } from "@svc/testing";
import {
  fakeResolver,
  PUBLIC_BASE_URL,
  startHarness,
  waitFor,
  type Harness,
} from "./support/harness.ts";

/**
 * What keeps the dispatcher's memory flat while a backlog drains (the full-size figure is
 * bench/backlog-memory-bench.ts): however long the backlog, no more than
 * WEBHOOK_DELIVERY_CONCURRENCY attempts are in flight and about as many messages wait in the
 * client. A reduced backlog: 1,000 events × 5 subscriptions = 5,000 pending deliveries, recorded
 * and queued while no dispatcher runs, against a subscriber that takes 20 ms per POST.
 */
const EVENTS = 1_000;
const SUBSCRIPTIONS = 5;
const TOTAL = EVENTS * SUBSCRIPTIONS;
// Below the per-subscription caps' sum (5 × 16), so the global bound is the one that binds.
const CONCURRENCY = 24;

let ca: TestCa;
let receiver: Receiver;
let h: Harness;

beforeAll(async () => {
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  h = await startHarness({ resolver: fakeResolver(), caFile: ca.caFile });
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
  ca?.dispose();
});

async function buildBacklog(): Promise<string[]> {
  const paths: string[] = [];
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const path = `/backlog/${i}`;
    receiver.setBehaviour(path, () => ({ status: 204, delayMs: 20 }));
    const res = await h.api("client-backlog", "POST", "/v1/webhooks", {
      url: receiver.url(path),
      event_types: ["vacancy.updated"],
    });
    expect(res.status).toBe(201);
    receiver.setSecrets(path, [res.body.data.secret]);
    paths.push(path);
  }
  // What the fan-out does per event: one statement records the deliveries, then they are queued.
  await ensureStream(await jetstreamManager(h.nc), deliveriesStreamConfig(h.n));
  const store = new PgDispatchStore(h.pool);
  const queue = createNatsDeliveryQueue(jetstream(h.nc), h.n);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < EVENTS) {
        const e = buildEvent({
          type: "vacancy.updated",
          entityId: `b${next++}`,
          publicBaseUrl: PUBLIC_BASE_URL,
        });
        await queue.enqueue(
          await store.fanOut(
            { eventUuid: e.event_uuid, eventType: e.event_type, body: JSON.stringify(e) },
            new Date(),
          ),
        );
      }
    }),
  );
  return paths;
}

describe("a dispatcher draining a backlog", () => {
  it("never has more than WEBHOOK_DELIVERY_CONCURRENCY attempts in flight, nor holds much more than that many messages", async () => {
    const paths = await buildBacklog();
    const pending = Number(
      (
        await h.pool.query<{ n: string }>(
          "SELECT count(*) AS n FROM webhooks.deliveries WHERE status = 'pending'",
        )
      ).rows[0]!.n,
    );
    expect(pending).toBe(TOTAL);

    await h.startDispatcher({ WEBHOOK_DELIVERY_CONCURRENCY: String(CONCURRENCY) });
    const jsm = await jetstreamManager(h.nc);
    let mostUnacked = 0;
    const delivered = () => paths.reduce((sum, p) => sum + receiver.received(p).length, 0);
    const watch = (async () => {
      while (delivered() < TOTAL) {
        // Delivered to this dispatcher and not yet acked: running plus buffered in the client.
        const info = await jsm.consumers.info(h.n.deliveriesStream, h.n.consumers.deliveries);
        mostUnacked = Math.max(mostUnacked, info.num_ack_pending);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await waitFor("the backlog to drain", () => delivered() >= TOTAL, 120_000, 50);
    await watch;

    // The subscriber's view: requests open at the same moment, over all subscriptions.
    expect(receiver.maxConcurrentTotal()).toBeLessThanOrEqual(CONCURRENCY);
    // The bound was really under pressure (a 20 ms subscriber and a 5,000-delivery backlog).
    expect(receiver.maxConcurrentTotal()).toBeGreaterThanOrEqual(CONCURRENCY / 2);
    // Handlers running (≤ concurrency), the client's outstanding pull (max_messages = concurrency)
    // and acks still on their way to the server: a small multiple of the concurrency, not a share
    // of the backlog.
    expect(mostUnacked).toBeLessThanOrEqual(3 * CONCURRENCY);
    expect(mostUnacked).toBeGreaterThan(0);
    // Every delivery went out once and is recorded.
    const ids = new Set(paths.flatMap((p) => receiver.received(p).map((r) => r.deliveryId)));
    expect(ids.size).toBe(TOTAL);
    await waitFor(
      "every record to be written",
      async () =>
        Number(
          (
            await h.pool.query<{ n: string }>(
              "SELECT count(*) AS n FROM webhooks.deliveries WHERE status = 'succeeded'",
            )
          ).rows[0]!.n,
        ) === TOTAL,
      20_000,
      100,
    );
  }, 180_000);
});
