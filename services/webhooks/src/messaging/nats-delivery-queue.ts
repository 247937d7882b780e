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
 * Publishes delivery messages to the deliveries work stream, all at once, waiting for every ack.
 */
export function createNatsDeliveryQueue(js: JetStreamClient, n: Names): DeliveryQueue {
  return {
    async enqueue(messages, trace?: TraceContext) {
      await Promise.all(
        messages.map((m) => {
          const headers = trace ? setTraceContext(makeHeaders(), trace) : undefined;
          return publish(js, n.deliverySubject(m.subscription_uuid), m, {
            msgId: deliveryMessageId(m),
            ...(headers && { headers }),
          });
        }),
      );
    },
  };
}
