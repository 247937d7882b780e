// One event followed across processes: the whole stack (`npm start`'s launcher, every service its
// own process with its instrument.ts preload) exports spans and metrics by OTLP/HTTP JSON to a
// receiver in this test. An application created through the gateway (with a caller's unsampled
// traceparent) → identity's vacancy lookup over NATS request/reply → its outbox → its relay's
// publish → the dispatcher's fan-out → the deliveries queue → attempt 1's POST (500) → attempt 2's
// POST (200), a trace of its own linked to the queue's send. The subscriber's URL is on no span
// past its host and port; idle change detection leaves no trace; every process's metrics name
// their instance. The services' /metrics show the same workload.
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleValue } from "@svc/telemetry";
import { waitFor, createTestCa, type TestCa } from "@svc/testing";
import { startPrivateStack, type PrivateStack } from "../support/private-stack.ts";
import { startReceiver, type Receiver } from "../../services/webhooks/test/support/receiver.ts";
import {
  KIND,
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from "./support/otlp-receiver.ts";

const VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;
const RETRY_AFTER_MS = 1_500;
// A caller's own trace context, marked "not sampled": the edge keeps the trace id, our sampler
// (always on here) decides.
const CALLER_TRACE = "5bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "10f067aa0ba902b7";
const SUBSCRIBER_SECRET = "trace-subscriber-secret";
const CLUSTER = "trace-e2e-cluster";

let otlp: OtlpReceiver;
let ca: TestCa;
let subscriber: Receiver;
let stack: PrivateStack;
let token: string;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  ca = createTestCa();
  subscriber = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  stack = await startPrivateStack({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      // The installed exporters default to http/protobuf; this receiver reads JSON.
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "200",
      OTEL_METRIC_EXPORT_INTERVAL: "1000",
      OTEL_RESOURCE_ATTRIBUTES: `k8s.cluster.name=${CLUSTER}`,
      OTEL_TRACES_SAMPLER: "parentbased_always_on",
      LOG_LEVEL: "info",
      WEBHOOK_ALLOW_LOOPBACK: "true",
      WEBHOOK_EXTRA_CA_FILE: ca.caFile,
      WEBHOOK_RETRY_SCHEDULE_MS: String(RETRY_AFTER_MS),
      RELAY_POLL_MS: "100",
    },
  });
  const basic = Buffer.from(
    `${stack.demoClient.clientId}:${stack.demoClient.clientSecret}`,
  ).toString("base64");
  const res = await fetch(`${stack.baseUrl}/oauth/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${basic}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials",
  });
  expect(res.status).toBe(200);
  token = ((await res.json()) as { access_token: string }).access_token;
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await subscriber?.close();
  await otlp?.close();
  ca?.dispose();
}, 60_000);

async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      accept: "application/json",
      ...(body !== undefined && { "content-type": "application/json" }),
      ...headers,
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

const internalPort = (name: string) => stack.processes.find((p) => p.name === name)!.internalPort!;
const scrape = async (name: string) =>
  (await fetch(`http://127.0.0.1:${internalPort(name)}/metrics`)).text();

/** Follows parent links inside the received spans: is `span` below `ancestor`? */
function descendsFrom(span: ReceivedSpan, ancestor: ReceivedSpan, all: ReceivedSpan[]): boolean {
  const byId = new Map(all.map((s) => [s.spanId, s]));
  for (
    let s: ReceivedSpan | undefined = span;
    s;
    s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined
  ) {
    if (s.parentSpanId === ancestor.spanId) return true;
  }
  return false;
}

/**
 * The outgoing HTTP POST (a CLIENT span, as are the attempt's database queries) under `attempt`.
 */
const isPostOf = (s: ReceivedSpan, attempt: ReceivedSpan) =>
  s.parentSpanId === attempt.spanId &&
  s.kind === KIND.CLIENT &&
  s.attributes["http.request.method"] === "POST";

function only(what: string, spans: ReceivedSpan[]): ReceivedSpan {
  if (spans.length !== 1) throw new Error(`expected one ${what}, found ${spans.length}`);
  return spans[0]!;
}

describe("one event across processes", () => {
  it(
    "is one trace from the API request to the first POST, and the retry's trace links back to the queue's send",
    { timeout: 120_000 },
    async () => {
      // A subscriber that fails the first attempt and accepts the retry.
      const path = "/hooks/trace";
      subscriber.setBehaviour(path, (n) => (n === 1 ? { status: 500 } : { status: 200 }));
      const created = await api<{ data: { webhook_uuid: string; secret: string } }>(
        "POST",
        "/v1/webhooks",
        {
          url: `${subscriber.url(path)}?token=${SUBSCRIBER_SECRET}`,
          event_types: ["application.created"],
        },
      );
      expect(created.status).toBe(201);
      subscriber.setSecrets(path, [created.body.data.secret]);

      const vacancies = await api<{ data: Array<{ uuid: string }> }>(
        "GET",
        "/v1/vacancies?per_page=1",
      );
      expect(vacancies.status).toBe(200);
      const application = await api<{ data: { application_uuid: string } }>(
        "POST",
        "/v1/applications",
        {
          vacancy_uuid: vacancies.body.data[0]!.uuid,
          candidate: { email: `trace-${randomUUID()}@example.com` },
          consent: true,
        },
        {
          "Idempotency-Key": `trace-${randomUUID()}`,
          traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-00`,
        },
      );
      expect(application.status).toBe(201);

      await waitFor(
        "two POSTs to the subscriber",
        () => subscriber.received(path).length >= 2,
        60_000,
      );
      const posts = subscriber.received(path);
      expect(posts).toHaveLength(2);
      expect(posts.every((p) => p.eventType === "application.created")).toBe(true);
      const eventUuid = posts[0]!.eventId;
      const deliveryId = posts[0]!.deliveryId;
      expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(RETRY_AFTER_MS - 50);

      // Spans arrive within a batch delay or two of each process; the retry's POST is the last.
      const attemptsOf = () =>
        otlp
          .spans()
          .filter(
            (s) =>
              s.name === "webhook delivery attempt" &&
              s.attributes["webhook.delivery_uuid"] === deliveryId,
          );
      await waitFor(
        "both attempt spans and their POSTs",
        () => {
          const attempts = attemptsOf();
          return (
            attempts.length === 2 && attempts.every((a) => otlp.spans().some((s) => isPostOf(s, a)))
          );
        },
        30_000,
      );
      const spans = otlp.spans();

      // 1. The request: identity's SERVER span for POST /v1/applications, in the caller's trace
      // although the caller did not sample it.
      const server = only(
        "server span of the request",
        spans.filter(
          (s) =>
            s.kind === KIND.SERVER &&
            s.resource["service.name"] === "identity" &&
            s.attributes["http.route"] === "/v1/applications" &&
            s.attributes["http.request.method"] === "POST",
        ),
      );
      const traceId = server.traceId;
      expect(traceId).toBe(CALLER_TRACE);
      expect(server.parentSpanId).toBe(CALLER_SPAN);
      // 1b. identity asks vacancies over NATS request/reply: a CLIENT span in the request, the
      // responder's SERVER span its child (the context went in the NATS headers), and the legacy
      // read below that.
      const lookup = only(
        "vacancy lookup request span",
        spans.filter(
          (s) =>
            s.kind === KIND.CLIENT &&
            s.traceId === traceId &&
            s.attributes["messaging.system"] === "nats" &&
            s.resource["service.name"] === "identity",
        ),
      );
      expect(descendsFrom(lookup, server, spans)).toBe(true);
      const reply = only(
        "vacancy lookup reply span",
        spans.filter((s) => s.kind === KIND.SERVER && s.parentSpanId === lookup.spanId),
      );
      expect(reply.resource["service.name"]).toBe("vacancies");
      expect(reply.attributes["messaging.destination.name"]).toBe(
        lookup.attributes["messaging.destination.name"],
      );
      expect(
        spans.some(
          (s) =>
            s.parentSpanId === reply.spanId &&
            s.kind === KIND.CLIENT &&
            s.attributes["db.system.name"] === "mysql",
        ),
      ).toBe(true);
      // 2. The relay's publish continues the request's trace (context stored with the outbox row).
      const send = only(
        "send span",
        spans.filter(
          (s) => s.kind === KIND.PRODUCER && s.attributes["messaging.message.id"] === eventUuid,
        ),
      );
      expect(send.resource["service.name"]).toBe("identity");
      expect(send.traceId).toBe(traceId);
      expect(descendsFrom(send, server, spans)).toBe(true);
      const batch = only(
        "relay batch span",
        spans.filter((s) => s.spanId === send.links[0]?.spanId),
      );
      expect(batch.name).toBe("outbox relay batch");
      // 3. The dispatcher's fan-out is the publish's child (W3C context in the NATS headers).
      const fanOut = only(
        "fan-out span",
        spans.filter(
          (s) => s.kind === KIND.CONSUMER && s.attributes["messaging.message.id"] === eventUuid,
        ),
      );
      expect(fanOut.resource["service.name"]).toBe("webhooks-dispatcher");
      expect(fanOut.traceId).toBe(traceId);
      expect(fanOut.parentSpanId).toBe(send.spanId);
      // 4. The deliveries queue: a PRODUCER span under the fan-out; attempt 1 is the delivery
      // message's CONSUMER span, the send's child; its POST (CLIENT, answered 500) the attempt's.
      const queued = only(
        "deliveries send span",
        spans.filter(
          (s) => s.kind === KIND.PRODUCER && s.attributes["webhook.delivery_uuid"] === deliveryId,
        ),
      );
      expect(queued.resource["service.name"]).toBe("webhooks-dispatcher");
      expect(queued.traceId).toBe(traceId);
      expect(queued.parentSpanId).toBe(fanOut.spanId);
      const [first, retry] = [1, 2].map((n) =>
        only(
          `attempt ${n}`,
          attemptsOf().filter((a) => a.attributes["webhook.attempt"] === n),
        ),
      );
      expect(first!.traceId).toBe(traceId);
      expect(first!.kind).toBe(KIND.CONSUMER);
      expect(first!.parentSpanId).toBe(queued.spanId);
      const firstPost = only(
        "POST of attempt 1",
        spans.filter((s) => isPostOf(s, first!)),
      );
      expect(firstPost.traceId).toBe(traceId);
      expect(firstPost.attributes["http.response.status_code"]).toBe(500);
      // 5. The retry, later, is a trace of its own with a link to the send; its POST got 200.
      expect(retry!.parentSpanId).toBeUndefined();
      expect(retry!.traceId).not.toBe(traceId);
      expect(retry!.links.map((l) => [l.traceId, l.spanId])).toEqual([[traceId, queued.spanId]]);
      const retryPost = only(
        "POST of attempt 2",
        spans.filter((s) => isPostOf(s, retry!)),
      );
      expect(retryPost.traceId).toBe(retry!.traceId);
      expect(retryPost.attributes["http.response.status_code"]).toBe(200);
      // The subscriber's URL is on the POSTs as scheme, host and port; path and query nowhere.
      const origin = new URL(subscriber.url(path));
      for (const post of [firstPost, retryPost])
        expect(post.attributes).toMatchObject({
          "url.full": `https://${origin.hostname}:${origin.port}/REDACTED`,
          "url.path": "/REDACTED",
          "url.query": "REDACTED",
          "server.address": origin.hostname,
        });
      const recorded = JSON.stringify(spans);
      expect(recorded).not.toContain(path);
      expect(recorded).not.toContain(SUBSCRIBER_SECRET);

      // Resource attributes name the service, its version, the environment, the instance and
      // what OTEL_RESOURCE_ATTRIBUTES adds.
      for (const s of [server, lookup, reply, send, fanOut, queued, first!, retry!]) {
        expect(s.resource).toMatchObject({
          "service.version": VERSION,
          "deployment.environment.name": "sandbox",
          "k8s.cluster.name": CLUSTER,
          "service.instance.id": expect.stringMatching(/^[0-9a-f-]{36}$/),
        });
      }
      // Nothing of the internal port is traced, and no span stands alone as a database query or
      // outgoing call.
      expect(
        spans.filter((s) =>
          /\/(livez|readyz|metrics)/.test(
            String(s.attributes["url.path"] ?? s.attributes["http.target"] ?? ""),
          ),
        ),
      ).toEqual([]);
      expect(spans.filter((s) => s.kind === KIND.CLIENT && s.parentSpanId === undefined)).toEqual(
        [],
      );

      // The request's log line carries its trace id (and no token).
      const requestLine = stack
        .output()
        .split("\n")
        .find(
          (l) =>
            l.includes('"msg":"request"') &&
            l.includes('"route":"/v1/applications"') &&
            l.includes('"method":"POST"'),
        );
      expect(requestLine).toBeDefined();
      expect(requestLine).toContain(`"trace_id":"${traceId}"`);
      expect(requestLine).toMatch(/"span_id":"[0-9a-f]{16}"/);
      expect(requestLine).not.toContain(token);

      // The same workload on the processes' /metrics.
      const dispatcher = await scrape("webhooks-dispatcher");
      expect(
        sampleValue(dispatcher, "webhook_delivery_attempts_total", {
          outcome: "retrying",
          attempt: "1",
        }),
      ).toBe(1);
      expect(
        sampleValue(dispatcher, "webhook_delivery_attempts_total", {
          outcome: "succeeded",
          attempt: "2",
        }),
      ).toBe(1);
      expect(sampleValue(dispatcher, "webhook_delivery_latency_count", { attempt: "2" })).toBe(1);
      const identity = await scrape("identity");
      expect(sampleValue(identity, "outbox_pending", { outbox_schema: "identity" })).toBe(0);
      expect(
        sampleValue(identity, "http_server_request_duration_count", {
          http_route: "/v1/applications",
          http_request_method: "POST",
          http_response_status_code: "201",
        }),
      ).toBe(1);
      const auth = await scrape("auth");
      expect(sampleValue(auth, "auth_token_issuance_total", { outcome: "issued" })).toBe(1);
    },
  );

  it(
    "records no trace of change detection passes that find nothing, and every process's metrics name their instance",
    { timeout: 60_000 },
    async () => {
      // Change detection has been running since the stack started: its quick passes every 250 ms,
      // its incremental ones every 5 s. Only the baselines (they write every record's state) and
      // passes that found changes are traces.
      const vacancies = await scrape("vacancies");
      const quiet = sampleValue(vacancies, "change_detection_passes_total", {
        change_detection_source: "vacancies",
        change_detection_kind: "quick",
        outcome: "unchanged",
      });
      expect(quiet).toBeGreaterThan(10);
      const passes = otlp.spans().filter((s) => s.name === "change detection pass");
      for (const pass of passes) {
        const found =
          Number(pass.attributes["change_detection.created"]) +
          Number(pass.attributes["change_detection.updated"]) +
          Number(pass.attributes["change_detection.deleted"]);
        expect(pass.attributes["change_detection.kind"] === "baseline" || found > 0).toBe(true);
      }

      // Every process with metrics pushes them with its instance id and OTEL_RESOURCE_ATTRIBUTES;
      // a process's spans carry the same instance id as its metrics.
      const names = stack.processes.filter((p) => p.internalPort).map((p) => p.name);
      expect(names).toEqual(
        expect.arrayContaining(["auth", "identity", "vacancies", "webhooks-dispatcher"]),
      );
      await waitFor(
        "a metrics export from every process",
        () => names.every((n) => otlp.metrics().some((m) => m.resource["service.name"] === n)),
        30_000,
      );
      const instances = new Map<string, Set<unknown>>();
      for (const { resource } of otlp.metrics()) {
        expect(resource).toMatchObject({
          "k8s.cluster.name": CLUSTER,
          "service.version": VERSION,
          "service.instance.id": expect.stringMatching(/^[0-9a-f-]{36}$/),
        });
        const name = String(resource["service.name"]);
        instances.set(
          name,
          (instances.get(name) ?? new Set()).add(resource["service.instance.id"]),
        );
      }
      for (const name of names) expect(instances.get(name)?.size).toBe(1);
      expect(new Set([...instances.values()].flatMap((ids) => [...ids])).size).toBe(instances.size);
      for (const span of otlp.spans())
        expect(instances.get(String(span.resource["service.name"]))).toContain(
          span.resource["service.instance.id"],
        );
    },
  );
});
