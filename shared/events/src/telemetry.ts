import {
  context,
  propagation,
  ROOT_CONTEXT,
  trace,
  type Context,
  type Meter,
} from "@opentelemetry/api";
import type { TraceContext } from "@svc/messaging";

/**
 * Spans and metrics of the event backbone. Without a registered OpenTelemetry SDK every span call
 * is a no-op; metrics are recorded only when the caller passes the process's Meter.
 */
export const tracer = trace.getTracer("@svc/events");

/**
 * The W3C trace context (traceparent, tracestate) of `ctx`, the active one by default: what an
 * operation stores with the events it writes, or carries in message headers, so that whoever
 * handles them later continues its trace. Undefined when nothing is traced (no SDK, or an unsampled
 * root).
 */
export function traceContextOf(ctx: Context = context.active()): TraceContext | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  const { traceparent, tracestate } = carrier;
  if (!traceparent) return undefined;
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** The context a stored or received trace context describes (the root context when there is none). */
export function contextFrom(stored: TraceContext | null | undefined): Context {
  return stored?.traceparent ? propagation.extract(ROOT_CONTEXT, { ...stored }) : ROOT_CONTEXT;
}

/**
 * Seconds since `startMs` (performance.now()), for histograms in the semantic conventions' unit.
 */
export function secondsSince(startMs: number): number {
  return (performance.now() - startMs) / 1000;
}

export type { Meter, TraceContext };
