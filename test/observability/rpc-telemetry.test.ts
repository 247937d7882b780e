// NATS request/reply (@svc/messaging request and serve) traced on both sides, on a real NATS with
// the real SDK bootstrap exporting to memory: the requester's CLIENT span, its context in the
// request's headers, the responder's SERVER span its child with the handler's work inside.
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SourceUnavailableError } from "@svc/errors";
import { testEnv } from "@svc/testing";
import {
  drainNats,
  getTraceContext,
  MessagingRemoteError,
  names,
  request,
  serve,
  type NatsConnection,
  type Responder,
  type TraceContext,
} from "@svc/messaging";
import {
  connectForTest,
  recordingLogger,
  testNamespace,
} from "../../shared/messaging/test/support.ts";
import {
  parentIdOf,
  spanIdOf,
  startInMemoryTracing,
  traceIdOf,
  type Tracing,
} from "./support/tracing.ts";

const n = names(testNamespace());
let tracing: Tracing;
let nc: NatsConnection;
let responder: Responder;
const received: Array<{ carried: TraceContext | undefined; activeSpanId: string | undefined }> = [];

beforeAll(async () => {
  tracing = await startInMemoryTracing("rpc-test");
  ({ nc } = await connectForTest(testEnv.TEST_NATS_URL, "observability-rpc-test"));
  responder = serve<{ uuid: string }, { exists: boolean }>(
    nc,
    n.rpc.vacancyExists,
    ({ uuid }, { headers }) => {
      received.push({
        carried: getTraceContext(headers),
        activeSpanId: trace.getActiveSpan()?.spanContext().spanId,
      });
      if (uuid === "down") throw new SourceUnavailableError(new Error("legacy down"));
      return { exists: uuid === "v-1" };
    },
    { queue: "vacancies", logger: recordingLogger() },
  );
  await nc.flush();
});

afterAll(async () => {
  await responder?.stop();
  await drainNats(nc);
  await tracing?.stop();
});

const tracer = trace.getTracer("rpc-test");
const inOperation = <T>(work: () => Promise<T>) =>
  tracer.startActiveSpan("operation", async (span) => {
    try {
      return await work();
    } finally {
      span.end();
    }
  });
const ask = (uuid: string) => request(nc, n.rpc.vacancyExists, { uuid }, { timeoutMs: 2_000 });

describe("request/reply tracing", () => {
  it("makes a CLIENT span in the requester's trace and a SERVER span, its child, around the handler", async () => {
    received.length = 0;
    expect(await inOperation(() => ask("v-1"))).toEqual({ exists: true });
    const operation = await tracing.ended("operation", (s) => s.name === "operation");
    const client = tracing.one(
      "request span",
      (s) => s.kind === SpanKind.CLIENT && traceIdOf(s) === traceIdOf(operation),
    );
    expect(client.name).toBe(`request ${n.rpc.vacancyExists}`);
    expect(parentIdOf(client)).toBe(spanIdOf(operation));
    expect(client.attributes).toMatchObject({
      "messaging.system": "nats",
      "messaging.destination.name": n.rpc.vacancyExists,
    });
    const server = await tracing.ended(
      "reply span",
      (s) => s.kind === SpanKind.SERVER && traceIdOf(s) === traceIdOf(operation),
    );
    expect(parentIdOf(server)).toBe(spanIdOf(client));
    // The W3C context went in the request's headers; the handler ran inside the SERVER span.
    expect(received).toEqual([
      {
        carried: { traceparent: `00-${traceIdOf(client)}-${spanIdOf(client)}-01` },
        activeSpanId: spanIdOf(server),
      },
    ]);
  });

  it("marks both sides as failed when the responder refuses, with the contract's code", async () => {
    await expect(inOperation(() => ask("down"))).rejects.toBeInstanceOf(MessagingRemoteError);
    const server = await tracing.ended(
      "failed reply span",
      (s) => s.kind === SpanKind.SERVER && s.status.code === SpanStatusCode.ERROR,
    );
    const client = tracing.one(
      "failed request span",
      (s) => s.spanContext().spanId === parentIdOf(server),
    );
    expect(client.status.code).toBe(SpanStatusCode.ERROR);
    expect(client.attributes["error.type"]).toBe("LEGACY_SOURCE_UNAVAILABLE");
    expect(server.attributes["error.type"]).toBe("LEGACY_SOURCE_UNAVAILABLE");
  });

  it("traces nothing for a request outside any traced operation", async () => {
    received.length = 0;
    const before = tracing.spans().length;
    expect(await ask("v-2")).toEqual({ exists: false });
    expect(received).toEqual([{ carried: undefined, activeSpanId: undefined }]);
    expect(tracing.spans().slice(before)).toEqual([]);
  });
});
