import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { createDrizzle } from "@svc/db";
import { buildEvent } from "@svc/events";
import { jetstream, jetstreamManager, publish } from "@svc/messaging";
import { unusedPort, createTestCa, type TestCa } from "@svc/testing";
import { startReceiver, type Behaviour, type Receiver } from "./support/receiver.ts";
import {
  fakeResolver,
  PUBLIC_BASE_URL,
  sleep,
  startHarness,
  waitFor,
  type Harness,
} from "./support/harness.ts";
import * as schema from "../src/store/schema.ts";
import { PgDeliveryStore } from "../src/store/pg-delivery-store.ts";

const SCHEDULE = [100, 200, 300, 400, 500];
const ATTEMPT_TIMEOUT_MS = 1_000;
let ca: TestCa;
let untrusted: TestCa;
let receiver: Receiver;
let stranger: Receiver;
let h: Harness;
const OWNER = "client-deliveries";

beforeAll(async () => {
  ca = createTestCa();
  untrusted = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  stranger = await startReceiver({ key: untrusted.serverKey, cert: untrusted.serverCert });
  h = await startHarness({ resolver: fakeResolver(), caFile: ca.caFile });
  // Fewer delivery slots than usual, so one slow subscriber without its cap could take them all.
  await h.startDispatcher({
    WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(","),
    WEBHOOK_ATTEMPT_TIMEOUT_MS: String(ATTEMPT_TIMEOUT_MS),
    WEBHOOK_DELIVERY_ACK_WAIT_MS: "3000",
    WEBHOOK_DELIVERY_CONCURRENCY: "32",
  });
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
  await stranger?.close();
  ca?.dispose();
  untrusted?.dispose();
});

let paths = 0;
/** A subscription of its own at a fresh receiver path, the receiver holding its secret. */
async function subscribe(
  options: { types?: string[]; behaviour?: Behaviour; owner?: string; url?: string } = {},
) {
  const path = `/hooks/${++paths}`;
  if (options.behaviour) receiver.setBehaviour(path, options.behaviour);
  const res = await h.api(options.owner ?? OWNER, "POST", "/v1/webhooks", {
    url: options.url ?? receiver.url(path),
    event_types: options.types ?? ["vacancy.created"],
  });
  expect(res.status).toBe(201);
  receiver.setSecrets(path, [res.body.data.secret]);
  return { id: res.body.data.webhook_uuid as string, secret: res.body.data.secret as string, path };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type DeliveryJson = any;

async function deliveryOf(
  subscriptionId: string,
  eventUuid: string,
): Promise<DeliveryJson | undefined> {
  const list = await h.api(OWNER, "GET", `/v1/webhooks/${subscriptionId}/deliveries?per_page=100`);
  const item = list.body.data.find((d: DeliveryJson) => d.event_uuid === eventUuid);
  if (!item) return undefined;
  return (
    await h.api(OWNER, "GET", `/v1/webhooks/${subscriptionId}/deliveries/${item.delivery_uuid}`)
  ).body.data;
}

async function settled(
  subscriptionId: string,
  eventUuid: string,
  timeoutMs = 10_000,
): Promise<DeliveryJson> {
  return waitFor(
    `delivery of ${eventUuid} to settle`,
    async () => {
      const d = await deliveryOf(subscriptionId, eventUuid);
      return d && d.status !== "pending" ? d : undefined;
    },
    timeoutMs,
    100,
  );
}

const failFirst =
  (status: number, headers: Record<string, string> = {}): Behaviour =>
  (n) =>
    n === 1 ? { status, headers } : { status: 200 };

// Tests use a subscription and receiver path of their own, so most groups run concurrently;
// the isolation test (timing) runs alone at the end.
describe("a delivery", () => {
  it("is a signed POST with the delivery headers and the event payload exactly as published", async () => {
    const sub = await subscribe();
    const event = await h.publishEvent("vacancy.created", "vac-1");
    const [got] = await waitFor("the POST", () =>
      receiver.received(sub.path, event.event_uuid).length > 0
        ? receiver.received(sub.path, event.event_uuid)
        : undefined,
    );
    expect(got!.body).toBe(JSON.stringify(event));
    expect(got!.eventId).toBe(event.event_uuid);
    expect(got!.eventType).toBe("vacancy.created");
    expect(got!.verifiedWith).toEqual([sub.secret]);
    expect(got!.signatureCount).toBe(1);
    expect(got!.timestampOk).toBe(true);
    const delivery = await settled(sub.id, event.event_uuid);
    expect(got!.deliveryId).toBe(delivery.delivery_uuid);
    expect(delivery).toMatchObject({
      status: "succeeded",
      failure_reason: null,
      attempt_count: 1,
      round: 1,
      event_type: "vacancy.created",
      next_attempt_at: null,
      last_status_code: 204,
    });
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({
      number: 1,
      round: 1,
      status_code: 204,
      outcome: "succeeded",
      error_class: null,
    });
    expect(delivery.attempts[0].duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("goes only to enabled subscriptions of the event's type, once per event even when the event is redelivered", async () => {
    const wanted = await subscribe({ types: ["practice.updated"] });
    const other = await subscribe({ types: ["practice.deleted"] });
    const disabled = await subscribe({ types: ["practice.updated"] });
    expect(
      (await h.api(OWNER, "PATCH", `/v1/webhooks/${disabled.id}`, { enabled: false })).status,
    ).toBe(200);
    const event = await h.publishEvent("practice.updated");
    // The same event again, as a relay that crashed before marking it sent would (past the window:
    // new msg id).
    await publish(jetstream(h.nc), h.n.eventSubject("practice.updated"), event, {
      msgId: `${event.event_uuid}-again`,
    });
    await settled(wanted.id, event.event_uuid);
    await sleep(300);
    expect(receiver.received(wanted.path, event.event_uuid)).toHaveLength(1);
    expect(receiver.received(other.path, event.event_uuid)).toHaveLength(0);
    expect(receiver.received(disabled.path, event.event_uuid)).toHaveLength(0);
    const { rows } = await h.pool.query(
      "SELECT count(*)::int AS n FROM webhooks.deliveries WHERE event_uuid = $1",
      [event.event_uuid],
    );
    expect(rows[0].n).toBe(1);
  });
});

describe("trace context", () => {
  it("keeps the producer's W3C trace context with the event, whatever the header's case", async () => {
    const sub = await subscribe({ types: ["candidate.created"] });
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const event = await h.publishEvent("candidate.created", "c-1", {
      headers: { Traceparent: traceparent, tracestate: "svc=1" },
    });
    await settled(sub.id, event.event_uuid);
    const { rows } = await h.pool.query(
      "SELECT traceparent, tracestate FROM webhooks.events WHERE event_uuid = $1",
      [event.event_uuid],
    );
    expect(rows[0]).toEqual({ traceparent, tracestate: "svc=1" });
  });
});

describe.concurrent("classification", () => {
  it.each([
    [500, "http_server_error"],
    [503, "http_server_error"],
    [408, "http_retryable_status"],
    [425, "http_retryable_status"],
    [429, "http_retryable_status"],
    [301, "http_redirect"],
    [307, "http_redirect"],
  ])("retries after %i (%s) and succeeds on the next attempt", async (status, errorClass) => {
    const sub = await subscribe({
      behaviour: failFirst(
        status,
        status < 400 ? { location: "https://hooks.example.com/elsewhere" } : {},
      ),
    });
    const event = await h.publishEvent("vacancy.created");
    const delivery = await settled(sub.id, event.event_uuid);
    expect(delivery.status).toBe("succeeded");
    expect(
      delivery.attempts.map((a: DeliveryJson) => [a.status_code, a.outcome, a.error_class]),
    ).toEqual([
      [status, "retrying", errorClass],
      [200, "succeeded", null],
    ]);
    const gap =
      Date.parse(delivery.attempts[1].attempted_at) - Date.parse(delivery.attempts[0].attempted_at);
    expect(gap).toBeGreaterThanOrEqual(SCHEDULE[0]!);
  });

  it.each([400, 401, 403, 404, 409, 410, 422])(
    "does not retry after %i: the delivery is failed",
    async (status) => {
      const sub = await subscribe({
        behaviour: () => ({ status, body: `{"error":"no ${status}"}` }),
      });
      const event = await h.publishEvent("vacancy.created");
      const delivery = await settled(sub.id, event.event_uuid);
      expect(delivery).toMatchObject({
        status: "failed",
        failure_reason: "http_status",
        attempt_count: 1,
        last_status_code: status,
        next_attempt_at: null,
      });
      expect(delivery.attempts[0]).toMatchObject({
        outcome: "failed",
        error_class: "http_client_error",
        response_sample: `{"error":"no ${status}"}`,
      });
      await sleep(SCHEDULE[0]! * 3);
      expect(receiver.received(sub.path, event.event_uuid)).toHaveLength(1);
    },
  );

  it("retries a timeout (the attempt is bounded by WEBHOOK_ATTEMPT_TIMEOUT_MS)", async () => {
    const sub = await subscribe({
      behaviour: (n) =>
        n === 1 ? { status: 200, delayMs: ATTEMPT_TIMEOUT_MS + 500 } : { status: 200 },
    });
    const event = await h.publishEvent("vacancy.created");
    const delivery = await settled(sub.id, event.event_uuid);
    expect(delivery.status).toBe("succeeded");
    expect(delivery.attempts[0]).toMatchObject({
      outcome: "retrying",
      error_class: "timeout",
      error_detail: expect.stringMatching(/^TimeoutError/),
      status_code: null,
    });
    expect(delivery.attempts[0].duration_ms).toBeLessThan(ATTEMPT_TIMEOUT_MS + 1_000);
  });

  it("retries a refused connection and an untrusted certificate", async () => {
    const refused = await subscribe({ url: `https://127.0.0.1:${await unusedPort()}/gone` });
    const tls = await subscribe({ url: stranger.url("/untrusted") });
    const event = await h.publishEvent("vacancy.created");
    const [a, b] = await Promise.all([
      settled(refused.id, event.event_uuid),
      settled(tls.id, event.event_uuid),
    ]);
    expect(a.attempts.map((x: DeliveryJson) => x.error_class)).toEqual(Array(6).fill("connection"));
    expect(b.attempts.map((x: DeliveryJson) => x.error_class)).toEqual(Array(6).fill("tls"));
    expect(b.attempts[0].error_detail).toMatch(/certificate/i);
    expect(stranger.received()).toHaveLength(0); // the TLS handshake failed before any request
  });

  it("keeps only a short sample of a large response body", async () => {
    const sub = await subscribe({ behaviour: () => ({ status: 400, body: "x".repeat(100_000) }) });
    const event = await h.publishEvent("vacancy.created");
    const delivery = await settled(sub.id, event.event_uuid);
    expect(delivery.attempts[0].response_sample.length).toBe(512);
  });
});

describe.concurrent("the retry schedule", () => {
  it("makes six attempts at the configured gaps, then the delivery is dead with no new attempts", async () => {
    const sub = await subscribe({ behaviour: () => ({ status: 500 }) });
    const event = await h.publishEvent("vacancy.created");
    const delivery = await settled(sub.id, event.event_uuid);
    expect(delivery).toMatchObject({
      status: "dead",
      failure_reason: "attempts_exhausted",
      attempt_count: 6,
      next_attempt_at: null,
    });
    expect(delivery.attempts.map((a: DeliveryJson) => a.outcome)).toEqual([
      "retrying",
      "retrying",
      "retrying",
      "retrying",
      "retrying",
      "dead",
    ]);
    const hits = receiver.received(sub.path, event.event_uuid).map((r) => r.at);
    const gaps = hits.slice(1).map((t, i) => t - hits[i]!);
    console.info(`schedule ${SCHEDULE.join(",")} ms → measured gaps ${gaps.join(",")} ms`);
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(SCHEDULE[i]! - 5);
      // Processing and redelivery pickup on a busy 2-core machine.
      expect(gap).toBeLessThan(SCHEDULE[i]! + 750);
    });
    await sleep(1_000);
    expect(receiver.received(sub.path, event.event_uuid)).toHaveLength(6);
    // Retries are driven by nak(delay): no consumer backoff, no delivery cap
    // (docs/decisions/delivery-retries-with-nak-delay.md).
    const info = await (
      await jetstreamManager(h.nc)
    ).consumers.info(h.n.deliveriesStream, h.n.consumers.deliveries);
    expect(info.config.max_deliver).toBe(-1);
    expect(info.config.backoff ?? []).toEqual([]);
  });

  it("never follows a redirect, even to an internal address", async () => {
    const sub = await subscribe({
      behaviour: () => ({ status: 302, headers: { location: receiver.url("/internal-target") } }),
    });
    const event = await h.publishEvent("vacancy.created");
    const delivery = await settled(sub.id, event.event_uuid);
    expect(delivery.status).toBe("dead");
    expect(
      delivery.attempts.every(
        (a: DeliveryJson) => a.status_code === 302 && a.error_class === "http_redirect",
      ),
    ).toBe(true);
    expect(receiver.received("/internal-target")).toHaveLength(0);
  });
});

describe.concurrent("manual redelivery", () => {
  it("starts a new round for a dead delivery; succeeded and pending ones are 409", async () => {
    let healthy = false;
    const sub = await subscribe({ behaviour: () => ({ status: healthy ? 200 : 503 }) });
    const event = await h.publishEvent("vacancy.created");
    const dead = await settled(sub.id, event.event_uuid);
    expect(dead.status).toBe("dead");
    healthy = true;
    const res = await h.api(
      OWNER,
      "POST",
      `/v1/webhooks/${sub.id}/deliveries/${dead.delivery_uuid}/redeliver`,
    );
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({
      status: "pending",
      round: 2,
      round_attempt_count: 0,
      attempt_count: 6,
    });
    const done = await settled(sub.id, event.event_uuid);
    expect(done).toMatchObject({
      status: "succeeded",
      round: 2,
      attempt_count: 7,
      round_attempt_count: 1,
    });
    expect(done.attempts.at(-1)).toMatchObject({ number: 7, round: 2, outcome: "succeeded" });
    const again = await h.api(
      OWNER,
      "POST",
      `/v1/webhooks/${sub.id}/deliveries/${dead.delivery_uuid}/redeliver`,
    );
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain("succeeded");
  });

  it("redelivers a failed (4xx) delivery", async () => {
    let gone = true;
    const sub = await subscribe({ behaviour: () => ({ status: gone ? 410 : 202 }) });
    const event = await h.publishEvent("vacancy.created");
    const failed = await settled(sub.id, event.event_uuid);
    expect(failed.status).toBe("failed");
    gone = false;
    expect(
      (
        await h.api(
          OWNER,
          "POST",
          `/v1/webhooks/${sub.id}/deliveries/${failed.delivery_uuid}/redeliver`,
        )
      ).status,
    ).toBe(202);
    expect((await settled(sub.id, event.event_uuid)).status).toBe("succeeded");
  });

  it("lists deliveries by status", async () => {
    const events: string[] = [];
    const firstEventFails: Behaviour = (_n, id) => {
      if (!events.includes(id)) events.push(id);
      return { status: events[0] === id ? 404 : 200 };
    };
    // A type no other test publishes, so the first event this path sees is this test's first.
    const sub = await subscribe({
      types: ["recruitment_case.created"],
      behaviour: firstEventFails,
    });
    const a = await h.publishEvent("recruitment_case.created");
    await settled(sub.id, a.event_uuid);
    const b = await h.publishEvent("recruitment_case.created");
    await settled(sub.id, b.event_uuid);
    const failed = await h.api(OWNER, "GET", `/v1/webhooks/${sub.id}/deliveries?status=failed`);
    expect(failed.body.data.map((d: DeliveryJson) => d.event_uuid)).toEqual([a.event_uuid]);
    expect(failed.body.meta.pagination.total).toBe(1);
    expect(failed.body.data[0]).not.toHaveProperty("attempts");
    const bad = await h.api(OWNER, "GET", `/v1/webhooks/${sub.id}/deliveries?status=lost`);
    expect(bad.status).toBe(422);
  });
});

describe.concurrent("test ping", () => {
  it("sends system.ping to that subscription only", async () => {
    const target = await subscribe({ types: ["vacancy.deleted"] });
    const bystander = await subscribe({ types: ["system.ping"] });
    const res = await h.api(OWNER, "POST", `/v1/webhooks/${target.id}/test`);
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({
      status: "pending",
      event_type: "system.ping",
      webhook_uuid: target.id,
    });
    const done = await settled(target.id, res.body.data.event_uuid);
    expect(done.status).toBe("succeeded");
    const [got] = receiver.received(target.path, res.body.data.event_uuid);
    const payload = JSON.parse(got!.body);
    expect(payload).toMatchObject({
      event_type: "system.ping",
      entity: { type: "system", id: target.id },
      event_version: 1,
    });
    expect(got!.verifiedWith).toEqual([target.secret]);
    await sleep(200);
    expect(receiver.received(bystander.path, res.body.data.event_uuid)).toHaveLength(0);
  });

  it("is 409 for a disabled subscription", async () => {
    const sub = await subscribe();
    await h.api(OWNER, "PATCH", `/v1/webhooks/${sub.id}`, { enabled: false });
    expect((await h.api(OWNER, "POST", `/v1/webhooks/${sub.id}/test`)).status).toBe(409);
  });
});

describe.concurrent("secret rotation", () => {
  it("signs with the new and the old secret during the overlap, then with the new one only", async () => {
    const sub = await subscribe();
    const rotated = await h.api(OWNER, "POST", `/v1/webhooks/${sub.id}/rotate-secret`);
    const fresh = rotated.body.data.secret as string;
    receiver.setSecrets(sub.path, [sub.secret, fresh]);
    const during = await h.publishEvent("vacancy.created");
    await settled(sub.id, during.event_uuid);
    const first = receiver.received(sub.path, during.event_uuid)[0]!;
    expect(first.signatureCount).toBe(2);
    // A receiver still holding only the old secret, and one already on the new one, both verify.
    expect(first.verifiedWith.sort()).toEqual([sub.secret, fresh].sort());

    await h.pool.query(
      "UPDATE webhooks.subscriptions SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1",
      [sub.id],
    );
    const after = await h.publishEvent("vacancy.created");
    await settled(sub.id, after.event_uuid);
    const second = receiver.received(sub.path, after.event_uuid)[0]!;
    expect(second.signatureCount).toBe(1);
    expect(second.verifiedWith).toEqual([fresh]);
  });
});

describe.concurrent("no delivery after a subscription is disabled or deleted", () => {
  it("stops retrying once the subscription is disabled (delivery failed: subscription_disabled)", async () => {
    const sub = await subscribe({ behaviour: () => ({ status: 500 }) });
    const event = await h.publishEvent("vacancy.created");
    await waitFor(
      "the first attempt",
      () => receiver.received(sub.path, event.event_uuid).length === 1,
    );
    await h.api(OWNER, "PATCH", `/v1/webhooks/${sub.id}`, { enabled: false });
    const delivery = await settled(sub.id, event.event_uuid);
    expect(delivery).toMatchObject({
      status: "failed",
      failure_reason: "subscription_disabled",
      attempt_count: 1,
    });
    await sleep(SCHEDULE.reduce((a, b) => a + b, 0));
    expect(receiver.received(sub.path, event.event_uuid)).toHaveLength(1);
  });

  it("stops retrying once the subscription is deleted", async () => {
    const sub = await subscribe({ behaviour: () => ({ status: 500 }) });
    const event = await h.publishEvent("vacancy.created");
    await waitFor(
      "the first attempt",
      () => receiver.received(sub.path, event.event_uuid).length === 1,
    );
    expect((await h.api(OWNER, "DELETE", `/v1/webhooks/${sub.id}`)).status).toBe(200);
    await sleep(SCHEDULE.reduce((a, b) => a + b, 0));
    expect(receiver.received(sub.path, event.event_uuid)).toHaveLength(1);
    const { rows } = await h.pool.query(
      "SELECT count(*)::int AS n FROM webhooks.deliveries WHERE subscription_id = $1",
      [sub.id],
    );
    expect(rows[0].n).toBe(0);
  });
});

describe("requeue sweep", () => {
  it("sends a delivery the API recorded but could not publish (e.g. NATS was down)", async () => {
    const sub = await subscribe({ types: ["vacancy.deleted"] });
    const store = new PgDeliveryStore(createDrizzle(h.pool, schema));
    const event = buildEvent({
      type: "system.ping",
      entityId: sub.id,
      publicBaseUrl: PUBLIC_BASE_URL,
    });
    await store.createSingle(
      sub.id,
      { eventUuid: event.event_uuid, eventType: event.event_type, body: JSON.stringify(event) },
      randomUUID(),
      new Date(),
    );
    // Nothing was published: only the dispatcher's sweep (every 500 ms here) can send it.
    await waitFor(
      "the sweep to deliver it",
      () => receiver.received(sub.path, event.event_uuid).length > 0,
      5_000,
    );
    expect((await settled(sub.id, event.event_uuid)).status).toBe("succeeded");
  });
});

describe("isolation of subscribers", () => {
  it("a slow subscriber holds at most its in-flight cap and does not hold back another's deliveries", async () => {
    const slow = await subscribe({
      types: ["candidate.created"],
      behaviour: () => ({ status: 200, delayMs: 500 }),
    });
    const fast = await subscribe({ types: ["application.created"] });
    // The slow backlog is queued first, so without the per-subscription cap it would take every
    // slot.
    for (let i = 0; i < 80; i++) await h.publishEvent("candidate.created");
    const started = Date.now();
    for (let i = 0; i < 40; i++) await h.publishEvent("application.created");
    await waitFor("every fast delivery", () => receiver.received(fast.path).length >= 40, 10_000);
    const fastDone = Date.now() - started;
    const slowSoFar = receiver.received(slow.path).length;
    console.info(
      `80 slow events queued first, then 40 fast: fast subscriber done ${fastDone} ms after its first event; slow had ${slowSoFar}, at most ${receiver.maxConcurrent(slow.path)} at once`,
    );
    // The WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION default.
    expect(receiver.maxConcurrent(slow.path)).toBeLessThanOrEqual(16);
    expect(slowSoFar).toBeLessThan(80);
    expect(fastDone).toBeLessThan(3_000);
  });
});
