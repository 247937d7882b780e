import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from "@opentelemetry/api";
import type { TraceContext } from "@svc/messaging";
import { contextFrom, traceContextOf } from "@svc/events";

const tracer = trace.getTracer("webhooks-dispatcher");

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
  const parent = contextFrom(msg.trace);
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
  /** The context the delivery message carries: its send span's (nats-delivery-queue.ts). */
  carried: TraceContext | undefined;
  /** The message's subject on the deliveries stream. */
  subject: string;
  deliveryId: string;
  eventType: string;
  round: number;
  /** 1-based, within the round. */
  attempt: number;
};

/**
 * One delivery attempt: the CONSUMER span of the delivery message (a message that is only put back,
 * its subscriber busy or its time not come, makes none). The first attempt of a round runs as a
 * child of the message's send span, in the trace of what queued it (the fan-out, a ping's or a
 * redelivery's request). A retry may come hours later: it starts a trace of its own with a LINK
 * to that span, instead of stretching one trace over hours. The POST is a CLIENT child span (the
 * undici instrumentation). A message without a context of its own falls back to the fan-out's.
 */
export function inDeliverySpan<T>(
  info: AttemptSpanInfo,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const from = contextFrom(info.carried ?? info.trace);
  const fromSpan = trace.getSpanContext(from);
  const first = info.attempt === 1 && (info.carried !== undefined || info.round === 1);
  const parent = first ? from : ROOT_CONTEXT;
  const span = tracer.startSpan(
    "webhook delivery attempt",
    {
      kind: SpanKind.CONSUMER,
      ...(first ? {} : { root: true }),
      ...(!first && fromSpan ? { links: [{ context: fromSpan }] } : {}),
      attributes: {
        "messaging.system": "nats",
        "messaging.operation.type": "process",
        "messaging.destination.name": info.subject,
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
