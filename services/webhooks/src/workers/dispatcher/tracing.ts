import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from "@opentelemetry/api";
import type { TraceContext } from "@svc/messaging";
import { traceContextOf } from "../../domain/trace-context.ts";

const tracer = trace.getTracer("webhooks-dispatcher");

function contextOf(stored: TraceContext | undefined): Context {
  return stored ? propagation.extract(ROOT_CONTEXT, { ...stored }) : ROOT_CONTEXT;
}

async function inSpan<T>(
  span: Span,
  parent: Context,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * The fan-out of one event: a CONSUMER span, child of the relay's publish (its context comes in
 * the message headers, read whatever their case). `work` gets the context to store with the
 * deliveries, so every attempt, however late, can point back at this span.
 */
export function inFanOutSpan<T>(
  msg: { trace: TraceContext | undefined; subject: string; eventUuid: string; eventType: string },
  work: (fanOutContext: TraceContext | undefined) => Promise<T>,
): Promise<T> {
  const parent = contextOf(msg.trace);
  const span = tracer.startSpan(
    `process ${msg.eventType}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        "messaging.system": "nats",
        "messaging.operation.type": "process",
        "messaging.destination.name": msg.subject,
        "messaging.message.id": msg.eventUuid,
        "event.type": msg.eventType,
      },
    },
    parent,
  );
  // Untraced (no SDK): keep passing the producer's context along.
  return inSpan(span, parent, () => work(traceContextOf(trace.setSpan(parent, span)) ?? msg.trace));
}

export type AttemptSpanInfo = {
  /** The fan-out's context, stored with the delivery's event. */
  trace: TraceContext | undefined;
  deliveryId: string;
  eventType: string;
  round: number;
  /** 1-based, within the round. */
  attempt: number;
};

/**
 * One delivery attempt. The first attempt of the first round runs as a child of the fan-out, in
 * its trace. A retry (or a manual redelivery) may come hours later: it starts a trace of its own
 * with a LINK to the fan-out, instead of stretching one trace over hours. The POST is a CLIENT
 * child span (the undici instrumentation).
 */
export function inDeliverySpan<T>(
  info: AttemptSpanInfo,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const fanOut = contextOf(info.trace);
  const fanOutSpan = trace.getSpanContext(fanOut);
  const first = info.round === 1 && info.attempt === 1;
  const parent = first ? fanOut : ROOT_CONTEXT;
  const span = tracer.startSpan(
    "webhook delivery attempt",
    {
      kind: SpanKind.INTERNAL,
      ...(first ? {} : { root: true }),
      ...(!first && fanOutSpan
        ? { links: [{ context: fanOutSpan, attributes: { "webhook.link": "fan-out" } }] }
        : {}),
      attributes: {
        "webhook.delivery_uuid": info.deliveryId,
        "webhook.event_type": info.eventType,
        "webhook.round": info.round,
        "webhook.attempt": info.attempt,
      },
    },
    parent,
  );
  return inSpan(span, parent, work);
}
