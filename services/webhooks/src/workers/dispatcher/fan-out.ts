import { z } from "zod";
import { EVENT_TYPES, type EventPayload } from "@svc/events";
import { getTraceContext, type Decision, type Delivery } from "@svc/messaging";
import type { Clock } from "../../domain/model.ts";
import type { DeliveryQueue, DispatchStore } from "../../domain/ports.ts";
import { inFanOutSpan } from "./tracing.ts";

/**
 * The event payload; anything else on the events stream is terminated as poison by the consumer.
 */
export const eventPayloadSchema = z.object({
  event_uuid: z.uuid(),
  event_type: z.enum(EVENT_TYPES as [string, ...string[]]),
  event_version: z.number().int(),
  occurred_at: z.string(),
  entity: z.object({ type: z.string(), id: z.string() }),
  links: z.object({ self: z.string() }),
});

export type FanOutDeps = { store: DispatchStore; queue: DeliveryQueue; clock: Clock };

/**
 * One event → one delivery record per matching enabled subscription, then one queue message per
 * delivery, then the event is acked. A crash anywhere redelivers the event: records already made
 * are not made again (unique event + subscription), and its still pending deliveries are
 * published again under the same message ids, which the deliveries stream de-duplicates.
 */
export function createFanOutHandler(
  deps: FanOutDeps,
): (d: Delivery<EventPayload>) => Promise<Decision> {
  return ({ data, msg, headers, subject }) =>
    // The producer's trace context comes in the headers (any case); the fan-out span's own
    // context is stored with the event, so each attempt of each delivery can find its way back
    // here.
    inFanOutSpan(
      {
        trace: getTraceContext(headers),
        subject,
        eventUuid: data.event_uuid,
        eventType: data.event_type,
      },
      async (trace) => {
        // The raw text, not a re-serialisation: it is what gets signed and POSTed.
        const event = {
          eventUuid: data.event_uuid,
          eventType: data.event_type,
          body: msg.string(),
          trace,
        };
        const messages = await deps.store.fanOut(event, deps.clock.now());
        if (messages.length > 0) await deps.queue.enqueue(messages, trace);
        return { action: "ack" } as const;
      },
    );
}
