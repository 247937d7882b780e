import type pg from "pg";
import type { Meter } from "@opentelemetry/api";
import type { LeaderElector } from "@svc/leader";
import { startRelay, type Relay } from "./relay.ts";
import {
  startDetector,
  type ChangeSource,
  type RunningDetector,
} from "./change-detection/index.ts";
import {
  ensureStream,
  eventsStreamConfig,
  jetstream,
  jetstreamManager,
  names,
  type Logger,
  type NatsConnection,
} from "@svc/messaging";

/** The config keys the event pipeline reads (relayEnvShape, detectorEnvShape and the service's own). */
export type EventSettings = {
  NATS_NAMESPACE: string;
  PUBLIC_BASE_URL: string;
  TIME_ZONE: string;
  RELAY_POLL_MS: number;
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
  elector: LeaderElector;
  logger: Logger;
  /** The detector's clock (its "today" and wall-clock time); tests move it. Default Date.now. */
  now?: () => number;
  /** The process's Meter: outbox backlog, detection pass duration and changes found. */
  meter?: Meter;
};

export type EventPipeline = {
  relay: Relay;
  detector: RunningDetector;
  /** Detector first (it writes the outbox), then the relay; both before the pool and NATS close. */
  stop(): Promise<void>;
};

/**
 * Change detection into the outbox, and the relay from the outbox to the events stream. The
 * relay runs in every replica (they share the rows); the detector only while `elector` says this
 * replica leads. The stream is created here, at start, so a misconfigured JetStream fails loudly.
 */
export async function startEventPipeline(options: EventPipelineOptions): Promise<EventPipeline> {
  const { settings, schema, pool, nc, logger } = options;
  const eventNames = names(settings.NATS_NAMESPACE);
  const jsm = await jetstreamManager(nc);
  await ensureStream(jsm, eventsStreamConfig(eventNames));
  const meter = options.meter ? { meter: options.meter } : {};
  const relay = startRelay({
    pool,
    schema,
    js: jetstream(nc),
    jsm,
    names: eventNames,
    logger,
    pollMs: settings.RELAY_POLL_MS,
    ...meter,
  });
  const detector = startDetector({
    pool,
    schema,
    source: options.source,
    logger,
    elector: options.elector,
    publicBaseUrl: settings.PUBLIC_BASE_URL,
    timeZone: settings.TIME_ZONE,
    incrementalEveryMs: settings.DETECTOR_INCREMENTAL_MS,
    sweepEveryMs: settings.DETECTOR_SWEEP_MS,
    emitCreatedOnBaseline: settings.DETECTOR_EMIT_CREATED_ON_BASELINE,
    ...(options.now ? { now: options.now } : {}),
    ...meter,
  });
  return {
    relay,
    detector,
    stop: async () => {
      await detector.stop();
      await relay.stop();
    },
  };
}
