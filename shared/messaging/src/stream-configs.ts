import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import type { ConsumerConfig, StreamConfig } from "@nats-io/jetstream";
import { SINGLE_SERVER, topologyFields, type JetStreamTopology } from "./settings.ts";
import type { Names } from "./subjects.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export type StreamSpec = Partial<StreamConfig> & { name: string };
export type ConsumerSpec = Partial<ConsumerConfig> & { durable_name: string };

/**
 * The events stream: every domain event, published by the outbox relays, read by the webhook
 * fan-out. Limits retention so more than one reader may consume it independently.
 */
export function eventsStreamConfig(
  n: Names,
  topology: JetStreamTopology = SINGLE_SERVER,
): StreamSpec {
  return {
    name: n.eventsStream,
    ...topologyFields(topology),
    subjects: [n.eventsWildcard],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    // A relay that crashed between publishing and marking the outbox row sent republishes with
    // the same Nats-Msg-Id (the event uuid); 2 h covers any realistic restart or outage of a
    // relay, and the window's id index costs memory, so it is not made longer.
    duplicate_window: nanos(2 * HOUR_MS),
    // Events are also kept in each service's outbox table; the stream only needs to bridge an
    // outage of the dispatcher (a long weekend plus margin), not to be an archive.
    max_age: nanos(7 * DAY_MS),
  };
}

/**
 * The delivery work queue: one message per (event, subscription), consumed by the dispatcher.
 * Why this setup on NATS 2.9: docs/decisions/jetstream-delivery-queue.md.
 */
export function deliveriesStreamConfig(
  n: Names,
  options: { maxAgeMs?: number; topology?: JetStreamTopology } = {},
): StreamSpec {
  return {
    name: n.deliveriesStream,
    ...topologyFields(options.topology ?? SINGLE_SERVER),
    subjects: [n.deliveriesWildcard],
    storage: StorageType.File,
    // Work queue: a message is deleted once acked or terminated, so the stream holds only work.
    retention: RetentionPolicy.Workqueue,
    // Longer than the whole retry schedule (about 7.5 h in production); it is also what finally
    // removes messages left behind after max_deliver, which a work queue never deletes itself.
    max_age: nanos(options.maxAgeMs ?? 8 * DAY_MS),
    // The fan-out may re-publish a delivery after a crash; its msg id is
    // `${eventId}:${subscriptionId}`. Must be <= max_age or the server rejects the stream.
    duplicate_window: nanos(Math.min(2 * HOUR_MS, options.maxAgeMs ?? Infinity)),
  };
}

/**
 * The dispatcher's shared pull consumer on the delivery queue. Retries are scheduled by the
 * worker with nak(delay): NO `backoff` here, since on 2.9 it mis-times long schedules, holds back
 * other messages' retries (nats-server#6085) and fires early after a restart.
 */
export function deliveriesConsumerConfig(
  n: Names,
  options: { ackWaitMs?: number; maxDeliver?: number; maxAckPending?: number } = {},
): ConsumerSpec {
  return {
    durable_name: n.consumers.deliveries,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    // Only matters when a worker dies mid-attempt: a running handler's message is marked in
    // progress (consumer.ts). The dispatcher passes WEBHOOK_DELIVERY_ACK_WAIT_MS.
    ack_wait: nanos(options.ackWaitMs ?? 90_000),
    // Six attempts; the attempt number is the message's delivery count.
    max_deliver: options.maxDeliver ?? 6,
    // Every parked retry holds an ack-pending slot; the default 1000 would stall all deliveries
    // once a thousand retries are waiting.
    max_ack_pending: options.maxAckPending ?? 200_000,
  };
}

/**
 * The fan-out's consumer on the events stream. No max_deliver: an event must never be dropped
 * because a database was briefly down; the handler naks with a delay until it succeeds.
 */
export function eventsFanoutConsumerConfig(
  n: Names,
  options: { ackWaitMs?: number } = {},
): ConsumerSpec {
  return {
    durable_name: n.consumers.eventsFanout,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(options.ackWaitMs ?? 30_000),
    max_deliver: -1,
  };
}
