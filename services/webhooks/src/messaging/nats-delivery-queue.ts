import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from "@opentelemetry/api";
import { contextFrom, traceContextOf } from "@svc/events";
import {
  makeHeaders,
  publish,
  setTraceContext,
  type JetStreamClient,
  type Names,
  type TraceContext,
} from "@svc/messaging";
import type { DeliveryQueue } from "../domain/ports.ts";
import type { DeliveryMessage } from "../domain/model.ts";

const tracer = trace.getTracer("webhooks-dispatcher");

/**
 * The stream de-duplicates on this id within its window, so a fan-out or sweep that publishes a
 * delivery twice (a crash between publishing and marking it queued) stores it once. A manual
 * redelivery is a new round and needs a new id.
 */
export function deliveryMessageId(m: DeliveryMessage): string {
  const base = `${m.event_uuid}:${m.subscription_uuid}`;
  return m.round === 1 ? base : `${base}:r${m.round}`;
}

/**
 * Publishes delivery messages to the deliveries work stream, all at once, waiting for every ack,
 * in one PRODUCER span whose context every message carries in its headers (the attempt is its
 * consumer). Inside an operation (a fan-out, an API request) the span is its child; called outside
 * any (the requeue sweep, late) with the stored context of the delivery's event, it starts a trace
 * of its own linked to that context; with neither, nothing is traced.
 */
export function createNatsDeliveryQueue(js: JetStreamClient, n: Names): DeliveryQueue {
  return {
    async enqueue(messages, stored?: TraceContext) {
      const span = sendSpan(n.deliveriesStream, messages, stored);
      const carried = span
        ? (traceContextOf(trace.setSpan(span.parent, span.span)) ?? stored)
        : stored;
      try {
        await Promise.all(
          messages.map((m) => {
            const headers = carried ? setTraceContext(makeHeaders(), carried) : undefined;
            return publish(js, n.deliverySubject(m.subscription_uuid), m, {
              msgId: deliveryMessageId(m),
              ...(headers && { headers }),
            });
          }),
        );
      } catch (err) {
        span?.span.recordException(err as Error);
        span?.span.setStatus({ code: SpanStatusCode.ERROR });
        throw err;
      } finally {
        span?.span.end();
      }
    },
  };
}

function sendSpan(
  stream: string,
  messages: ReadonlyArray<DeliveryMessage>,
  stored: TraceContext | undefined,
): { span: Span; parent: Context } | undefined {
  const active = context.active();
  const inOperation = trace.getSpan(active) !== undefined;
  const storedSpan = trace.getSpanContext(contextFrom(stored));
  if (!inOperation && !storedSpan) return undefined;
  const span = tracer.startSpan(
    `send ${stream}`,
    {
      kind: SpanKind.PRODUCER,
      ...(!inOperation && { root: true }),
      ...(!inOperation && storedSpan && { links: [{ context: storedSpan }] }),
      attributes: {
        "messaging.system": "nats",
        "messaging.operation.type": "send",
        "messaging.destination.name": stream,
        ...(messages.length === 1
          ? {
              "messaging.message.id": deliveryMessageId(messages[0]!),
              "webhook.delivery_uuid": messages[0]!.delivery_uuid,
            }
          : { "messaging.batch.message_count": messages.length }),
      },
    },
    active,
  );
  return { span, parent: active };
}
