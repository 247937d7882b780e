import type pg from "pg";
import type { EventPayload } from "@svc/events";
import {
  ensureConsumer,
  ensureStream,
  eventsFanoutConsumerConfig,
  eventsStreamConfig,
  jetstream,
  jetstreamManager,
  names,
  startConsumer,
  type NatsConnection,
  type RunningConsumer,
} from "@svc/messaging";
import { silentLogger } from "./http.ts";
import { waitFor } from "./wait.ts";

/** What reached the events stream, read back the way the webhook fan-out reads it. */
export interface StreamReader {
  /** Every message received so far, in stream order. */
  received: EventPayload[];
  /** How often each event_uuid arrived (exactly once is the contract with the duplicate window). */
  deliveries: Map<string, number>;
  /** Waits until the outbox of `schema` is drained and every stored message has been received. */
  settle(pool: pg.Pool, schema: string): Promise<void>;
  stop(): Promise<void>;
}

/** A durable consumer on the namespace's events stream (created if missing), acking everything. */
export async function readEventStream(
  nc: NatsConnection,
  namespace: string,
): Promise<StreamReader> {
  const n = names(namespace);
  const jsm = await jetstreamManager(nc);
  await ensureStream(jsm, eventsStreamConfig(n));
  const consumerConfig = eventsFanoutConsumerConfig(n);
  await ensureConsumer(jsm, n.eventsStream, consumerConfig);
  const received: EventPayload[] = [];
  const deliveries = new Map<string, number>();
  const consumer: RunningConsumer = await startConsumer<EventPayload>({
    js: jetstream(nc),
    stream: n.eventsStream,
    consumer: consumerConfig.durable_name,
    concurrency: 1,
    logger: silentLogger(),
    handler: ({ data }) => {
      received.push(data);
      deliveries.set(data.event_uuid, (deliveries.get(data.event_uuid) ?? 0) + 1);
      return { action: "ack" };
    },
  });
  const stored = async () => (await jsm.streams.info(n.eventsStream)).state.messages;
  return {
    received,
    deliveries,
    settle: async (pool, schema) => {
      await waitFor(
        "the outbox to drain",
        async () =>
          (await pool.query(`SELECT 1 FROM "${schema}".outbox WHERE sent_at IS NULL LIMIT 1`))
            .rowCount === 0,
      );
      await waitFor(
        "every stored event to arrive",
        async () => received.length >= (await stored()),
      );
    },
    stop: () => consumer.stop(),
  };
}
