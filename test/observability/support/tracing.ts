// In-process tracing for tests: the real SDK bootstrap (@svc/telemetry) with an in-memory exporter.
import { context, propagation, trace } from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace";
import { startTelemetry } from "@svc/telemetry";

export type Tracing = {
  spans(): ReadableSpan[];
  /** The one finished span matching `pick`; fails naming what was there. */
  one(what: string, pick: (s: ReadableSpan) => boolean): ReadableSpan;
  /**
   * Like one(), waiting up to `timeoutMs` for the span to end (a server span ends after the
   * response).
   */
  ended(
    what: string,
    pick: (s: ReadableSpan) => boolean,
    timeoutMs?: number,
  ): Promise<ReadableSpan>;
  stop(): Promise<void>;
};

export async function startInMemoryTracing(serviceName = "test"): Promise<Tracing> {
  const exporter = new InMemorySpanExporter();
  const sdk = await startTelemetry({
    serviceName,
    serviceVersion: "0.0.0-test",
    environment: "sandbox",
    settings: { OTEL_SDK_DISABLED: false },
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const spans = () => exporter.getFinishedSpans();
  const one = (what: string, pick: (s: ReadableSpan) => boolean): ReadableSpan => {
    const found = spans().filter(pick);
    if (found.length !== 1)
      throw new Error(
        `expected one ${what}, found ${found.length} among: ${spans()
          .map((s) => s.name)
          .join(", ")}`,
      );
    return found[0]!;
  };
  return {
    spans,
    one,
    async ended(what, pick, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (!spans().some(pick) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      return one(what, pick);
    },
    async stop() {
      await sdk?.shutdown();
      // The API's globals outlive the SDK: unregister them so another file's SDK can register.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

export const traceIdOf = (s: ReadableSpan) => s.spanContext().traceId;
export const spanIdOf = (s: ReadableSpan) => s.spanContext().spanId;
export const parentIdOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
