import type pg from "pg";
import type { Meter } from "@opentelemetry/api";
import type { Logger } from "@svc/logging";
import { LeaderGroup, type LeaderElector } from "@svc/leader";
import { startRelay, type Relay } from "./relay.ts";
import { addDetector, type ChangeSource, type LeadingDetector } from "./change-detection/index.ts";
import {
  ensureStream,
  eventsStreamConfig,
  jetstream,
  jetstreamManager,
  jetStreamTopology,
  names,
  type NatsConnection,
  type TopologySettings,
} from "@svc/messaging";

/**
 * The config keys the event pipeline reads (relayEnvShape, detectorEnvShape and the service's own).
 */
export type EventSettings = RelaySettings & {
  PUBLIC_BASE_URL: string;
  TIME_ZONE: string;
  DETECTOR_INCREMENTAL_MS: number;
  DETECTOR_SWEEP_MS: number;
  DETECTOR_EMIT_CREATED_ON_BASELINE: boolean;
};

export type EventPipelineOptions = {
  settings: EventSettings;
  /** The service's own schema: outbox, change_state, change_cursor. */
  schema: string;
  pool: pg.Pool;
  nc: NatsConnection;
  source: ChangeSource;
  logger: Logger;
  /** The detector's clock (its "today" and wall-clock time); tests move it. Default Date.now. */
  now?: () => number;
  /** The process's Meter: outbox backlog, detection pass duration and changes found. */
  meter?: Meter;
} & (
  | {
      /**
       * The process's leader group: the detector becomes one of its tasks. The caller starts the
       * group, and stops it before stop() (the detector writes the outbox the relay reads).
       */
      leader: LeaderGroup;
      elector?: never;
    }
  | {
      /**
       * An election of the detector's own (a group of one), started and stopped with the pipeline.
       */
      elector: LeaderElector;
      leader?: never;
    }
);

export type EventPipeline = {
  relay: Relay;
  detector: LeadingDetector;
  /**
   * The detector's own election first (it writes the outbox), then the relay; both before the
   * pool and NATS close. With the caller's `leader` group, only the relay: the caller stops the
   * group first.
   */
  stop(): Promise<void>;
};

/** What the relay of a service's outbox needs: its stream's settings and the polling interval. */
export type RelaySettings = TopologySettings & { NATS_NAMESPACE: string; RELAY_POLL_MS: number };

/**
 * The relay from a service's outbox (`<schema>.outbox`, written in the same transaction as each
 * change) to the events stream. Every replica runs one; they share the rows (SKIP LOCKED). The
 * stream is created here, at start, so a misconfigured JetStream fails the start, not the first
 * event.
 */
export async function startOutboxRelay(options: {
  settings: RelaySettings;
  schema: string;
  pool: pg.Pool;
  nc: NatsConnection;
  logger: Logger;
  /** The process's Meter: outbox backlog and the age of its oldest pending row. */
  meter?: Meter | undefined;
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

/**
 * Change detection into the outbox, and the relay from the outbox to the events stream. The
 * relay runs in every replica (they share the rows); the detector only while this replica leads
 * (a task of the `leader` group, or under an `elector` of its own). The stream is created here,
 * at start, so a misconfigured JetStream fails loudly.
 */
export async function startEventPipeline(options: EventPipelineOptions): Promise<EventPipeline> {
  const { settings, schema, pool, logger } = options;
  const meter = options.meter ? { meter: options.meter } : {};
  const relay = await startOutboxRelay(options);
  // With an elector of its own, the detector runs in a leader group of one the pipeline owns.
  const ownsLeader = options.leader === undefined;
  const leader = options.leader ?? new LeaderGroup({ elector: options.elector, logger });
  const detector = addDetector(leader, {
    pool,
    schema,
    source: options.source,
    logger,
    publicBaseUrl: settings.PUBLIC_BASE_URL,
    timeZone: settings.TIME_ZONE,
    incrementalEveryMs: settings.DETECTOR_INCREMENTAL_MS,
    sweepEveryMs: settings.DETECTOR_SWEEP_MS,
    emitCreatedOnBaseline: settings.DETECTOR_EMIT_CREATED_ON_BASELINE,
    // Events this replica's detector writes go out at once, not at the relay's next poll.
    onEvents: () => relay.wake(),
    ...(options.now ? { now: options.now } : {}),
    ...meter,
  });
  if (ownsLeader) leader.start();
  return {
    relay,
    detector,
    stop: async () => {
      if (ownsLeader) await leader.stop();
      await relay.stop();
    },
  };
}
