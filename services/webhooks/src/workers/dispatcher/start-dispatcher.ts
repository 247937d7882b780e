import type pg from "pg";
import type { Meter } from "@opentelemetry/api";
import type { Logger } from "@svc/logging";
import type { EventPayload } from "@svc/events";
import {
  deliveriesConsumerConfig,
  deliveriesStreamConfig,
  ensureConsumer,
  ensureStream,
  eventsFanoutConsumerConfig,
  eventsStreamConfig,
  jetstream,
  type JetStreamManager,
  jetstreamManager,
  jetStreamTopology,
  type Names,
  names,
  type NatsConnection,
  startConsumer,
} from "@svc/messaging";
import type { DispatcherConfig } from "../../config.ts";
import type { Clock, DeliveryMessage } from "../../domain/model.ts";
import type { WebhookHttpClient } from "../../domain/ports.ts";
import { retryPolicy } from "../../domain/retry-policy.ts";
import { createNatsDeliveryQueue } from "../../messaging/nats-delivery-queue.ts";
import { createSecretBox, openedSecretsCache } from "../../store/secret-box.ts";
import { PgDispatchStore } from "../../store/pg-dispatch-store.ts";
import { createDeliveryHandler, deliveryMessageSchema } from "./delivery-worker.ts";
import { createFanOutHandler, eventPayloadSchema } from "./fan-out.ts";
import { inFlightCaps } from "./in-flight-caps.ts";
import { deliveryMetrics, observeConsumers } from "./metrics.ts";
import { startRequeueSweep } from "./requeue-sweep.ts";

export type DispatcherDeps = {
  config: DispatcherConfig;
  nc: NatsConnection;
  pool: pg.Pool;
  client: WebhookHttpClient;
  clock: Clock;
  logger: Logger;
  /**
   * The process's Meter: delivery outcomes and latency, consumer pending and ack-pending counts.
   */
  meter?: Meter;
};

export type RunningDispatcher = { stop(): Promise<void>; inFlight(): number };

/**
 * The streams and consumers: no consumer backoff (nak(delay) drives the schedule), max_ack_pending
 * high enough for parked retries (docs/decisions/delivery-retries-with-nak-delay.md).
 */
async function reconcileStreams(
  jsm: JetStreamManager,
  n: Names,
  config: DispatcherConfig,
): Promise<void> {
  const topology = jetStreamTopology(config);
  await ensureStream(jsm, eventsStreamConfig(n, topology));
  await ensureStream(jsm, deliveriesStreamConfig(n, { topology }));
  await ensureConsumer(
    jsm,
    n.eventsStream,
    eventsFanoutConsumerConfig(n, { ackWaitMs: config.WEBHOOK_FANOUT_ACK_WAIT_MS }),
  );
  // max_deliver unlimited (-1), unlike the shared default of 6: attempts are counted in the
  // delivery record, and a redelivery that made no attempt (crash, busy subscriber, database
  // outage) must not use one up and strand the delivery as neither retried nor dead.
  await ensureConsumer(
    jsm,
    n.deliveriesStream,
    deliveriesConsumerConfig(n, { ackWaitMs: config.WEBHOOK_DELIVERY_ACK_WAIT_MS, maxDeliver: -1 }),
  );
}

/**
 * Reconciles the streams and consumers, then runs the fan-out (events → delivery records and
 * queue messages), the delivery worker (queue → signed POST, retries by nak(delay)) and the
 * requeue sweep, until stop(). The retention job and the operator run in the dispatcher's leader
 * group (workers/start-leader-group.ts).
 */
export async function startDispatcher(deps: DispatcherDeps): Promise<RunningDispatcher> {
  const { config, nc, logger, clock } = deps;
  const n = names(config.NATS_NAMESPACE);
  const jsm = await jetstreamManager(nc);
  await reconcileStreams(jsm, n, config);
  const js = jetstream(nc);
  const store = new PgDispatchStore(deps.pool);
  const queue = createNatsDeliveryQueue(js, n);
  const deliveries = await startConsumer<DeliveryMessage>({
    js,
    stream: n.deliveriesStream,
    consumer: n.consumers.deliveries,
    concurrency: config.WEBHOOK_DELIVERY_CONCURRENCY,
    logger,
    meter: deps.meter,
    parse: (data) => deliveryMessageSchema.parse(data) as DeliveryMessage,
    handler: createDeliveryHandler({
      store,
      client: deps.client,
      secretBox: openedSecretsCache(createSecretBox(config.WEBHOOK_SECRET_KEY.base64), 10_000),
      policy: retryPolicy(config.WEBHOOK_RETRY_SCHEDULE_MS),
      caps: inFlightCaps({
        limit: config.WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION,
        maxWaiting: Math.ceil(config.WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION / 2),
        maxWaitMs: 250,
        minDeferMs: 20,
        maxDeferMs: config.WEBHOOK_SUBSCRIPTION_MAX_DEFER_MS,
      }),
      clock,
      logger,
      metrics: deps.meter ? deliveryMetrics(deps.meter) : undefined,
    }),
  });
  const fanOut = await startConsumer<EventPayload>({
    js,
    stream: n.eventsStream,
    consumer: n.consumers.eventsFanout,
    concurrency: config.WEBHOOK_FANOUT_CONCURRENCY,
    logger,
    meter: deps.meter,
    parse: (data) => eventPayloadSchema.parse(data) as EventPayload,
    handler: createFanOutHandler({ store, queue, clock }),
  });
  const unobserve = deps.meter
    ? observeConsumers(deps.meter, jsm, [
        { stream: n.eventsStream, consumer: n.consumers.eventsFanout },
        { stream: n.deliveriesStream, consumer: n.consumers.deliveries },
      ])
    : () => {};
  const sweep = startRequeueSweep({
    store,
    queue,
    clock,
    logger,
    everyMs: config.WEBHOOK_REQUEUE_SWEEP_MS,
  });
  return {
    async stop() {
      unobserve();
      await Promise.all([fanOut.stop(), deliveries.stop(), sweep.stop()]);
    },
    inFlight: () => deliveries.inFlight() + fanOut.inFlight(),
  };
}
