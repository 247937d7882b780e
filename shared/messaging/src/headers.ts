import { headers as natsHeaders, Match } from "@nats-io/transport-node";
import type { MsgHdrs } from "@nats-io/transport-node";

/** W3C trace context (https://www.w3.org/TR/trace-context/) as carried in message headers. */
export type TraceContext = { traceparent: string; tracestate?: string };

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** Builds NATS headers from a plain map (values must be strings). */
export function makeHeaders(values: Record<string, string> = {}): MsgHdrs {
  const h = natsHeaders();
  for (const [key, value] of Object.entries(values)) h.set(key, value);
  return h;
}

/**
 * Reads a header whatever its case. NATS headers match names exactly by default, so a producer
 * writing `Traceparent` would be invisible to `get("traceparent")`; HTTP-style tooling does that.
 */
export function getHeader(h: MsgHdrs | undefined, name: string): string | undefined {
  if (!h || !h.has(name, Match.IgnoreCase)) return undefined;
  return h.get(name, Match.IgnoreCase);
}

/** Sets the trace context, replacing any previous value under any case of the same name. */
export function setTraceContext(h: MsgHdrs, context: TraceContext): MsgHdrs {
  setHeader(h, "traceparent", context.traceparent);
  if (context.tracestate) setHeader(h, "tracestate", context.tracestate);
  return h;
}

/**
 * The trace context of a received message, or undefined when there is none. A malformed
 * traceparent is ignored (and its tracestate with it), as the W3C spec requires of receivers.
 */
export function getTraceContext(h: MsgHdrs | undefined): TraceContext | undefined {
  const traceparent = getHeader(h, "traceparent")?.trim();
  if (!traceparent || !TRACEPARENT.test(traceparent)) return undefined;
  const tracestate = getHeader(h, "tracestate");
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/**
 * Getter and setter in the shape OpenTelemetry's propagators expect (TextMapGetter and
 * TextMapSetter), so `propagation.inject(ctx, headers, natsHeaderSetter)` works without this
 * package depending on OpenTelemetry.
 */
export const natsHeaderGetter = {
  keys: (carrier: MsgHdrs): string[] => carrier.keys(),
  get: (carrier: MsgHdrs, key: string): string | undefined => getHeader(carrier, key),
};

export const natsHeaderSetter = {
  set: (carrier: MsgHdrs, key: string, value: string): void => setHeader(carrier, key, value),
};

function setHeader(h: MsgHdrs, name: string, value: string): void {
  h.delete(name, Match.IgnoreCase);
  h.set(name, value);
}
