import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEvent } from "@svc/events";
import type { Decision, Delivery } from "@svc/messaging";
import { createTestCa, silentLogger, type TestCa } from "@svc/testing";
import { loadDispatcherConfig } from "../src/config.ts";
import { systemClock, type DeliveryMessage } from "../src/domain/model.ts";
import type { WebhookHttpClient } from "../src/domain/ports.ts";
import { retryPolicy } from "../src/domain/retry-policy.ts";
import { PgDispatchStore } from "../src/store/pg-dispatch-store.ts";
import { createSecretBox } from "../src/store/secret-box.ts";
import { createDeliveryHandler } from "../src/workers/dispatcher/delivery-worker.ts";
import { inFlightCaps } from "../src/workers/dispatcher/in-flight-caps.ts";
import { createDeliveryClient } from "../src/compose.ts";
import { startReceiver, type Behaviour, type Receiver } from "./support/receiver.ts";
import {
  fakeResolver,
  PUBLIC_BASE_URL,
  SECRET_KEY,
  startHarness,
  type Harness,
} from "./support/harness.ts";

/**
 * A delivery message can be handled more than once: the server redelivers it when its ack wait
 * runs out (a dispatcher killed mid-attempt, or between recording a retry and its nak). Every
 * copy settles the same stream message, so each must follow the delivery record: a copy that
 * acks while the record says "retry later" drops the retry for good.
 */
const RETRY_MS = 5_000;

let ca: TestCa;
let receiver: Receiver;
let h: Harness;
let client: WebhookHttpClient;
let handle: (d: Delivery<DeliveryMessage>) => Promise<Decision>;
let store: PgDispatchStore;
let subscriptions = 0;

beforeAll(async () => {
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  h = await startHarness({ resolver: fakeResolver(), caFile: ca.caFile });
  store = new PgDispatchStore(h.pool);
  client = createDeliveryClient(loadDispatcherConfig(h.env), fakeResolver());
  handle = createDeliveryHandler({
    store,
    client,
    secretBox: createSecretBox(SECRET_KEY),
    policy: retryPolicy([RETRY_MS, RETRY_MS]),
    caps: inFlightCaps({ limit: 8, maxWaiting: 4, maxWaitMs: 250, minDeferMs: 20, maxDeferMs: 1 }),
    clock: systemClock,
    logger: silentLogger(),
  });
});
afterAll(async () => {
  await client?.close();
  await h?.close();
  await receiver?.close();
  ca?.dispose();
});

/** A subscription answering with `behaviour`, and one delivery recorded for a new event. */
async function oneDelivery(behaviour: Behaviour): Promise<{ message: DeliveryMessage }> {
  const path = `/copies/${++subscriptions}`;
  receiver.setBehaviour(path, behaviour);
  const res = await h.api("client-copies", "POST", "/v1/webhooks", {
    url: receiver.url(path),
    event_types: ["vacancy.updated"],
  });
  expect(res.status).toBe(201);
  receiver.setSecrets(path, [res.body.data.secret]);
  const e = buildEvent({ type: "vacancy.updated", entityId: path, publicBaseUrl: PUBLIC_BASE_URL });
  const messages = await store.fanOut(
    { eventUuid: e.event_uuid, eventType: e.event_type, body: JSON.stringify(e) },
    new Date(),
  );
  // Earlier tests' subscriptions take the event too; this test handles its own delivery only.
  const message = messages.find((m) => m.subscription_uuid === res.body.data.webhook_uuid);
  return { message: message! };
}

// The handler reads only the payload; the consumer around it applies the decision.
const copyOf = (message: DeliveryMessage) => ({ data: message }) as Delivery<DeliveryMessage>;

async function statusOf(deliveryId: string): Promise<string> {
  const { rows } = await h.pool.query<{ status: string }>(
    "SELECT status FROM webhooks.deliveries WHERE id = $1",
    [deliveryId],
  );
  return rows[0]!.status;
}

const naksWithin = (d: Decision, lowMs: number, highMs: number) =>
  d.action === "nak" && d.delayMs > lowMs && d.delayMs <= highMs;

describe("copies of one delivery message", () => {
  it("a copy redelivered after its retry was recorded (the worker died before its nak) waits for the rest of the delay, without a POST", async () => {
    const { message } = await oneDelivery(() => ({ status: 503 }));
    const first = await handle(copyOf(message));
    expect(naksWithin(first, RETRY_MS - 1_000, RETRY_MS)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));

    const redelivered = await handle(copyOf(message));
    expect(redelivered, JSON.stringify(redelivered)).toSatisfy((d: Decision) =>
      naksWithin(d, RETRY_MS - 1_500, RETRY_MS - 200),
    );
    expect(receiver.received(`/copies/${subscriptions}`)).toHaveLength(1);
    expect(await statusOf(message.delivery_uuid)).toBe("pending");
  });

  it("two copies attempting at once both follow the record: the one that lost the race puts the message back for the retry instead of acking it", async () => {
    const { message } = await oneDelivery(() => ({ status: 503, delayMs: 400 }));
    const decisions = await Promise.all([handle(copyOf(message)), handle(copyOf(message))]);

    // Both POSTed (the duplicate the contract allows); one attempt was recorded.
    expect(receiver.received(`/copies/${subscriptions}`)).toHaveLength(2);
    const { rows } = await h.pool.query(
      "SELECT count(*)::int AS n FROM webhooks.delivery_attempts WHERE delivery_id = $1",
      [message.delivery_uuid],
    );
    expect(rows[0].n).toBe(1);
    for (const d of decisions)
      expect(d, JSON.stringify(decisions)).toSatisfy((x: Decision) =>
        naksWithin(x, RETRY_MS - 1_500, RETRY_MS),
      );
  });

  it("two copies attempting at once, the recorded attempt succeeded: both ack", async () => {
    const { message } = await oneDelivery(() => ({ status: 200, delayMs: 400 }));
    const decisions = await Promise.all([handle(copyOf(message)), handle(copyOf(message))]);
    expect(decisions).toEqual([{ action: "ack" }, { action: "ack" }]);
    expect(await statusOf(message.delivery_uuid)).toBe("succeeded");
  });
});
