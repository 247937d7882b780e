import {
  context,
  propagation,
  ROOT_CONTEXT,
  trace,
  type Context,
  type Meter,
} from "@opentelemetry/api";

/**
 * Spans and metrics of the event backbone. Without a registered OpenTelemetry SDK every span call
 * is a no-op; metrics are recorded only when the caller passes the process's Meter.
 */
export const tracer = trace.getTracer("@svc/events");

/** The W3C trace context (traceparent, tracestate) of `ctx`; undefined when nothing is traced. */
export function traceContextOf(
  ctx: Context = context.active(),
): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent ? carrier : undefined;
}

/** The context a stored W3C trace context describes (the root context when there is none). */
export function contextFrom(stored: Record<string, string> | null | undefined): Context {
  return stored?.traceparent ? propagation.extract(ROOT_CONTEXT, stored) : ROOT_CONTEXT;
}

/**
 * Seconds since `startMs` (performance.now()), for histograms in the semantic conventions' unit.
 */
export function secondsSince(startMs: number): number {
  return (performance.now() - startMs) / 1000;
}

/**
 * An observable callback's work, bounded: a scrape must not hang on an unreachable database.
 * A failure or timeout observes nothing this time (the series goes stale instead of lying).
 */
export async function bounded<T>(work: Promise<T>, timeoutMs: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>(
    (resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)),
  );
  try {
    return await Promise.race([work.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export type { Meter };
