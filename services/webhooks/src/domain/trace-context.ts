import { context, propagation, type Context } from "@opentelemetry/api";
import type { TraceContext } from "@svc/messaging";

/**
 * The W3C trace context of `ctx` (the active one by default), to store with an event or carry in
 * message headers; undefined when nothing is traced (no SDK, or an unsampled root).
 */
export function traceContextOf(ctx: Context = context.active()): TraceContext | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  if (!carrier.traceparent) return undefined;
  return carrier.tracestate
    ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate }
    : { traceparent: carrier.traceparent };
}
