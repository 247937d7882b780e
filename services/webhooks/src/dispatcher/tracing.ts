import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { TraceContext } from "@svc/messaging";

const tracer = trace.getTracer("webhooks-dispatcher");

/**
 * Runs an attempt in a span whose parent is the event's trace (carried from the producer through
 * the events and deliveries streams), so one trace reaches the subscriber's POST. Without a
 * registered OpenTelemetry SDK every call here is a no-op.
 */
export async function inDeliverySpan<T>(ctx: { trace: TraceContext | undefined; deliveryId: string; eventType: string }, work: () => Promise<T>): Promise<T> {
  const parent = ctx.trace ? propagation.extract(ROOT_CONTEXT, { ...ctx.trace }) : context.active();
  const span = tracer.startSpan("webhook delivery attempt", { kind: SpanKind.CLIENT, attributes: { "webhook.delivery_uuid": ctx.deliveryId, "webhook.event_type": ctx.eventType } }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), work);
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    span.end();
  }
}
