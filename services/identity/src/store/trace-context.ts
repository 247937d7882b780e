import { context, propagation } from "@opentelemetry/api";

/**
 * The W3C trace context of the request in progress, stored with its outbox events so the relay
 * and the dispatcher continue the same trace. Undefined when tracing is off.
 */
export function activeTraceContext(): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : undefined;
}
