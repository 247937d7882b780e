// One event followed across processes: the whole stack (`npm start`'s launcher, every service its
// own process with its instrument.ts preload) exports spans by OTLP/HTTP JSON to a receiver in this
// test. An application created through the gateway → identity's outbox → its relay's publish → the
// dispatcher's fan-out → attempt 1's POST (500) → attempt 2's POST (200), a trace of its own
// linked to the fan-out. The services' /metrics show the same workload.
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
      OTEL_METRICS_EXPORTER: "none",
      OTEL_TRACES_SAMPLER: "parentbased_always_on",
      LOG_LEVEL: "info",
      WEBHOOK_ALLOW_LOOPBACK_FOR_TESTS: "true",
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
    "is one trace from the API request to the first POST, and the retry's trace links back to the fan-out",
    { timeout: 120_000 },
    async () => {
      // A subscriber that fails the first attempt and accepts the retry.
      const path = "/hooks/trace";
      subscriber.setBehaviour(path, (n) => (n === 1 ? { status: 500 } : { status: 200 }));
      const created = await api<{ data: { webhook_uuid: string; secret: string } }>(
        "POST",
        "/v1/webhooks",
        { url: subscriber.url(path), event_types: ["application.created"] },
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
        { "Idempotency-Key": `trace-${randomUUID()}` },
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

      // 1. The request: identity's SERVER span for POST /v1/applications starts the trace.
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
      // 4. Attempt 1 is the fan-out's child, its POST (CLIENT, answered 500) the attempt's.
      const [first, retry] = [1, 2].map((n) =>
        only(
          `attempt ${n}`,
          attemptsOf().filter((a) => a.attributes["webhook.attempt"] === n),
        ),
      );
      expect(first!.traceId).toBe(traceId);
      expect(first!.parentSpanId).toBe(fanOut.spanId);
      const firstPost = only(
        "POST of attempt 1",
        spans.filter((s) => isPostOf(s, first!)),
      );
      expect(firstPost.traceId).toBe(traceId);
      expect(firstPost.attributes["http.response.status_code"]).toBe(500);
      // 5. The retry, later, is a trace of its own with a link to the fan-out; its POST got 200.
      expect(retry!.parentSpanId).toBeUndefined();
      expect(retry!.traceId).not.toBe(traceId);
      expect(retry!.links.map((l) => [l.traceId, l.spanId])).toEqual([[traceId, fanOut.spanId]]);
      const retryPost = only(
        "POST of attempt 2",
        spans.filter((s) => isPostOf(s, retry!)),
      );
      expect(retryPost.traceId).toBe(retry!.traceId);
      expect(retryPost.attributes["http.response.status_code"]).toBe(200);

      // Resource attributes name the service, its version and the environment.
      for (const s of [server, send, fanOut, first!, retry!]) {
        expect(s.resource).toMatchObject({
          "service.version": VERSION,
          "deployment.environment.name": "sandbox",
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
});
