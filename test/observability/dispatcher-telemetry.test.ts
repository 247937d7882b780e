// The webhook dispatcher's spans and metrics: the real dispatcher (in this process, the SDK
// exporting to memory) on real PostgreSQL and NATS, POSTing to a local HTTPS receiver.
import { SpanKind } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetrics, sampleValue, type Metrics } from "@svc/telemetry";
import { silentLogger, createTestCa, type TestCa } from "@svc/testing";
import { loadDispatcherConfig } from "../../services/webhooks/src/config.ts";
import { systemClock } from "../../services/webhooks/src/domain/model.ts";
import { createDeliveryClient } from "../../services/webhooks/src/compose.ts";
import {
  startDispatcher,
  type RunningDispatcher,
} from "../../services/webhooks/src/workers/dispatcher/start-dispatcher.ts";
import type { WebhookHttpClient } from "../../services/webhooks/src/domain/ports.ts";
import {
  fakeResolver,
  startHarness,
  waitFor,
  type Harness,
} from "../../services/webhooks/test/support/harness.ts";
import {
  startReceiver,
  type Behaviour,
  type Receiver,
} from "../../services/webhooks/test/support/receiver.ts";
import {
  parentIdOf,
  spanIdOf,
  startInMemoryTracing,
  traceIdOf,
  type Tracing,
} from "./support/tracing.ts";
import { expectCatalogued } from "./support/metric-labels.ts";

const OWNER = "client-observability";
let tracing: Tracing;
let ca: TestCa;
let receiver: Receiver;
let h: Harness;
let metrics: Metrics;
let dispatcher: RunningDispatcher;
let client: WebhookHttpClient;

beforeAll(async () => {
  tracing = await startInMemoryTracing("webhooks-dispatcher");
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  h = await startHarness({ resolver: fakeResolver(), caFile: ca.caFile });
  metrics = createMetrics({
    serviceName: "webhooks-dispatcher",
    serviceVersion: "0.0.0",
    environment: "sandbox",
    otlp: false,
  });
  const config = loadDispatcherConfig({
    ...h.env,
    WEBHOOK_RETRY_SCHEDULE_MS: "300,300",
    WEBHOOK_ATTEMPT_TIMEOUT_MS: "4000",
    WEBHOOK_DELIVERY_ACK_WAIT_MS: "8000",
    WEBHOOK_REQUEUE_SWEEP_MS: "500",
  });
  client = createDeliveryClient(config, fakeResolver());
  dispatcher = await startDispatcher({
    config,
    nc: h.nc,
    pool: h.pool,
    client,
    clock: systemClock,
    logger: silentLogger(),
    meter: metrics.meter,
  });
});

afterAll(async () => {
  await dispatcher?.stop();
  await client?.close();
  await metrics?.shutdown();
  await h?.close();
  await receiver?.close();
  ca?.dispose();
  await tracing?.stop();
});

let paths = 0;
async function subscribe(types: string[], behaviour: Behaviour, query = "") {
  const path = `/obs/${++paths}`;
  receiver.setBehaviour(path, behaviour);
  const res = await h.api(OWNER, "POST", "/v1/webhooks", {
    url: `${receiver.url(path)}${query}`,
    event_types: types,
  });
  expect(res.status).toBe(201);
  receiver.setSecrets(path, [res.body.data.secret]);
  return { id: res.body.data.webhook_uuid as string, path };
}

async function deliveryStatus(
  subscriptionId: string,
  eventUuid: string,
): Promise<string | undefined> {
  const list = await h.api(OWNER, "GET", `/v1/webhooks/${subscriptionId}/deliveries?per_page=100`);
  return list.body.data.find((d: { event_uuid: string }) => d.event_uuid === eventUuid)?.status;
}

const settled = (subscriptionId: string, eventUuid: string, status: string) =>
  waitFor(
    `delivery to be ${status}`,
    async () => (await deliveryStatus(subscriptionId, eventUuid)) === status,
    20_000,
    100,
  );

const failFirst: Behaviour = (n) => (n === 1 ? { status: 500 } : { status: 200 });
const alwaysFail: Behaviour = () => ({ status: 503 });

describe("dispatcher tracing", () => {
  it("continues the producer's trace into the fan-out, the deliveries queue's send and attempt 1; the retry is a trace of its own linked to the send", async () => {
    const sub = await subscribe(["vacancy.created"], failFirst, "?token=s3cret-query");
    const producerTrace = "0af7651916cd43dd8448eb211c80319c";
    const producerSpan = "b7ad6b7169203331";
    // Header names in another case than the W3C spelling: they must still be found.
    const event = await h.publishEvent("vacancy.created", "v-trace", {
      headers: { Traceparent: `00-${producerTrace}-${producerSpan}-01` },
    });
    await settled(sub.id, event.event_uuid, "succeeded");
    const posts = receiver.received(sub.path, event.event_uuid);
    expect(posts).toHaveLength(2);
    const deliveryId = posts[0]!.deliveryId;

    await waitFor(
      "the attempt spans to end",
      () =>
        tracing
          .spans()
          .filter(
            (s) =>
              s.name === "webhook delivery attempt" &&
              s.attributes["webhook.delivery_uuid"] === deliveryId,
          ).length === 2,
    );
    const fanOut = tracing.one(
      "fan-out span",
      (s) =>
        s.name === "process vacancy.created" &&
        s.attributes["messaging.message.id"] === event.event_uuid,
    );
    expect(fanOut.kind).toBe(SpanKind.CONSUMER);
    expect(traceIdOf(fanOut)).toBe(producerTrace);
    expect(parentIdOf(fanOut)).toBe(producerSpan);

    // The deliveries queue's hop: a PRODUCER span under the fan-out, its context in the message.
    const send = tracing.one(
      "send span of the delivery",
      (s) => s.kind === SpanKind.PRODUCER && s.attributes["webhook.delivery_uuid"] === deliveryId,
    );
    expect(send.name).toBe(`send ${h.n.deliveriesStream}`);
    expect(traceIdOf(send)).toBe(producerTrace);
    expect(parentIdOf(send)).toBe(spanIdOf(fanOut));
    expect(send.attributes).toMatchObject({
      "messaging.system": "nats",
      "messaging.destination.name": h.n.deliveriesStream,
    });

    const attempt = (n: number) =>
      tracing.one(
        `attempt ${n}`,
        (s) =>
          s.name === "webhook delivery attempt" &&
          s.attributes["webhook.delivery_uuid"] === deliveryId &&
          s.attributes["webhook.attempt"] === n,
      );
    // Attempt 1 is the delivery message's CONSUMER span, child of the send.
    const first = attempt(1);
    expect(first.kind).toBe(SpanKind.CONSUMER);
    expect(traceIdOf(first)).toBe(producerTrace);
    expect(parentIdOf(first)).toBe(spanIdOf(send));
    expect(first.links).toEqual([]);
    expect(first.attributes).toMatchObject({
      "webhook.outcome": "retrying",
      "http.response.status_code": 500,
      "webhook.round": 1,
      "messaging.operation.type": "process",
    });

    const retry = attempt(2);
    expect(retry.kind).toBe(SpanKind.CONSUMER);
    expect(retry.parentSpanContext).toBeUndefined();
    expect(traceIdOf(retry)).not.toBe(producerTrace);
    expect(retry.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([
      [producerTrace, spanIdOf(send)],
    ]);
    expect(retry.attributes).toMatchObject({
      "webhook.outcome": "succeeded",
      "http.response.status_code": 200,
    });

    // Each POST is a CLIENT span (undici instrumentation) under its attempt; the subscriber's URL
    // is there as scheme, host and port only.
    const origin = new URL(receiver.url(sub.path));
    for (const a of [first, retry]) {
      const post = tracing.one(
        `POST of attempt ${String(a.attributes["webhook.attempt"])}`,
        (s) => s.kind === SpanKind.CLIENT && parentIdOf(s) === spanIdOf(a),
      );
      expect(traceIdOf(post)).toBe(traceIdOf(a));
      expect(post.attributes).toMatchObject({
        "http.request.method": "POST",
        "url.full": `https://${origin.hostname}:${origin.port}/REDACTED`,
        "url.path": "/REDACTED",
        "url.query": "REDACTED",
        "server.address": origin.hostname,
        "server.port": Number(origin.port),
      });
    }
    const recorded = JSON.stringify(tracing.spans().map((s) => [s.name, s.attributes, s.events]));
    expect(recorded).not.toContain(sub.path);
    expect(recorded).not.toContain("s3cret-query");
  });

  it("delivers a ping in the trace of the POST /test request that asked for it", async () => {
    const sub = await subscribe(["vacancy.created"], () => ({ status: 200 }));
    const res = await h.api(OWNER, "POST", `/v1/webhooks/${sub.id}/test`);
    expect(res.status).toBe(202);
    const deliveryId = res.body.data.delivery_uuid as string;
    const attempt = await tracing.ended(
      "ping attempt",
      (s) =>
        s.name === "webhook delivery attempt" &&
        s.attributes["webhook.delivery_uuid"] === deliveryId,
      20_000,
    );
    expect(attempt.attributes).toMatchObject({
      "webhook.event_type": "system.ping",
      "webhook.outcome": "succeeded",
    });
    const request = tracing.one(
      "POST /test server span",
      (s) =>
        s.kind === SpanKind.SERVER &&
        s.attributes["http.route"] === "/v1/webhooks/:webhook_uuid/test" &&
        traceIdOf(s) === traceIdOf(attempt),
    );
    // The request queued the ping: its send span is the request's child, the attempt the send's.
    const send = tracing.one(
      "send span of the ping",
      (s) => s.kind === SpanKind.PRODUCER && s.attributes["webhook.delivery_uuid"] === deliveryId,
    );
    expect(parentIdOf(send)).toBe(spanIdOf(request));
    expect(parentIdOf(attempt)).toBe(spanIdOf(send));
  });
});

describe("dispatcher metrics", () => {
  const value = (text: string, name: string, labels: Record<string, string> = {}) =>
    sampleValue(text, name, labels) ?? 0;

  it("counts attempts by outcome and number, dead deliveries and the latency of successful ones", async () => {
    const before = await metrics.scrape();
    const recovering = await subscribe(["practice.updated"], failFirst);
    const broken = await subscribe(["practice.updated"], alwaysFail);
    const event = await h.publishEvent("practice.updated", "p-metrics");
    await settled(recovering.id, event.event_uuid, "succeeded");
    await settled(broken.id, event.event_uuid, "dead");
    const after = await metrics.scrape();

    const delta = (name: string, labels: Record<string, string> = {}) =>
      value(after, name, labels) - value(before, name, labels);
    const attempts = (outcome: string, attempt: number) =>
      delta("webhook_delivery_attempts_total", { outcome, attempt: String(attempt) });
    expect(attempts("retrying", 1)).toBe(2);
    expect(attempts("succeeded", 2)).toBe(1);
    expect(attempts("retrying", 2)).toBe(1);
    expect(attempts("dead", 3)).toBe(1);
    expect(attempts("succeeded", 1)).toBe(0);
    expect(delta("webhook_delivery_dead_total")).toBe(1);
    expect(delta("webhook_delivery_latency_count", { attempt: "2" })).toBe(1);
    // The successful delivery waited out one retry delay (300 ms) before its second POST.
    expect(delta("webhook_delivery_latency_sum", { attempt: "2" })).toBeGreaterThanOrEqual(0.3);
    expect(delta("webhook_delivery_attempt_duration_count", { outcome: "retrying" })).toBe(3);
    expect(delta("webhook_delivery_attempt_duration_count", { outcome: "dead" })).toBe(1);
    expectCatalogued(after, [
      "webhook_delivery_attempts_total",
      "webhook_delivery_attempt_duration",
      "webhook_delivery_latency",
      "webhook_delivery_dead_total",
    ]);
  });

  it("reports the deliveries consumer's ack-pending count while an attempt runs, and nothing pending once done", async () => {
    const slow = await subscribe(["vacancy.deleted"], () => ({ status: 200, delayMs: 2_500 }));
    const event = await h.publishEvent("vacancy.deleted", "v-slow");
    const consumer = (text: string, kind: "pending" | "ack_pending", which: string) =>
      sampleValue(text, `messaging_consumer_${kind}`, { messaging_destination_name: which });
    const deliveries = h.n.deliveriesStream;
    await waitFor(
      "ack_pending ≥ 1 while the POST is in flight",
      async () => (consumer(await metrics.scrape(), "ack_pending", deliveries) ?? 0) >= 1,
      10_000,
      100,
    );
    await settled(slow.id, event.event_uuid, "succeeded");
    await waitFor(
      "both consumers idle",
      async () => {
        const text = await metrics.scrape();
        return [deliveries, h.n.eventsStream].every(
          (s) => consumer(text, "ack_pending", s) === 0 && consumer(text, "pending", s) === 0,
        );
      },
      10_000,
      100,
    );
    expectCatalogued(await metrics.scrape(), [
      "messaging_consumer_pending",
      "messaging_consumer_ack_pending",
    ]);
  });
});
