import type pg from "pg";
import type { Meter } from "@opentelemetry/api";
import { startRelay, type Relay } from "@svc/events";
import {
  ensureStream,
  eventsStreamConfig,
  jetstream,
  jetstreamManager,
  jetStreamTopology,
  type Logger,
  names,
  type NatsConnection,
  type TopologySettings,
} from "@svc/messaging";

/**
 * Publishes `identity.outbox` (written in the same transaction as each application, candidate and
 * case) to the events stream. Every replica runs one; they share the rows (SKIP LOCKED). The
 * stream is created at start, so a misconfigured JetStream fails the start, not the first event.
 */
export async function startOutboxRelay(options: {
  settings: TopologySettings & { NATS_NAMESPACE: string; RELAY_POLL_MS: number };
  schema: string;
  pool: pg.Pool;
  nc: NatsConnection;
  logger: Logger;
  /** The process's Meter: outbox backlog and the age of its oldest pending row. */
  meter?: Meter;
}): Promise<Relay> {
  const { settings, schema, pool, nc, logger } = options;
  const eventNames = names(settings.NATS_NAMESPACE);
  const topology = jetStreamTopology(settings);
  const jsm = await jetstreamManager(nc);
  await ensureStream(jsm, eventsStreamConfig(eventNames, topology));
  return startRelay({
    pool,
    schema,
    js: jetstream(nc),
    jsm,
    names: eventNames,
    topology,
    logger,
    pollMs: settings.RELAY_POLL_MS,
    ...(options.meter && { meter: options.meter }),
  });
}
