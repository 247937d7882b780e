import type { Meter } from "@opentelemetry/api";
import type { Logger } from "@svc/logging";
import type { ReadinessCheck } from "@svc/http";
import {
  connectNats,
  drainNats,
  jetStreamTopology,
  names,
  natsConnectSettings,
  openKv,
  type KV,
  type NatsConnection,
  type NatsSettings,
  type TopologySettings,
} from "@svc/messaging";
import { REVOCATION_BUCKET_OPTIONS, type ClientRevocation } from "./revocation-record.ts";
import { watchRevocations, type RevocationWatch } from "./revocation-watch.ts";
import type { RevocationView } from "./verifier.ts";

export interface RevocationFeedOptions {
  /**
   * A service config carrying natsEnvShape (or revocationFeedEnvShape); staleness defaults to 60 s.
   */
  config: NatsSettings &
    TopologySettings & {
      NATS_NAMESPACE: string;
      REVOCATION_MAX_STALENESS_MS?: number;
    };
  /** NATS connection name (service and role). */
  name: string;
  logger: Logger;
  /** An existing connection to use instead of opening one (it is then not drained by stop()). */
  connection?: NatsConnection;
  /** Pause between attempts while NATS or the bucket cannot be reached at start. */
  retryDelayMs?: number;
  probeIntervalMs?: number;
  restartAfterMs?: number;
  /** The process's Meter: `auth.revocation_list.staleness` is observed on it when given. */
  meter?: Meter;
}

export interface RevocationFeed {
  /** Pass to createTokenVerifier({ revocation }). "unknown" (503) until the first load. */
  view: RevocationView;
  /**
   * Ready once the revocation list has been loaded (a pod that cannot check revocations takes no
   * traffic).
   */
  readiness: ReadinessCheck;
  loaded: Promise<void>;
  /** The bucket once connected, for its one writer (the auth service). */
  bucket(): KV | undefined;
  watch(): RevocationWatch | undefined;
  onRevocation(listener: (revocation: ClientRevocation) => void): void;
  stop(): Promise<void>;
}

/**
 * Connects to NATS in the background (retrying until it works, so a NATS outage at start does not
 * crash-loop the service), opens the revocations bucket and watches it. In a main.ts:
 *   const revocations = startRevocationFeed({ config, name: SERVICE_NAME, logger });
 *   const verify = createCachedTokenVerifier({ ..., revocation: revocations.view });
 * plus `revocations.readiness` among the readiness checks and `revocations.stop()` as a shutdown
 * step. A config.ts without the NATS keys can pass `config: loadRevocationFeedConfig()`.
 */
export function startRevocationFeed(options: RevocationFeedOptions): RevocationFeed {
  const listeners: Array<(revocation: ClientRevocation) => void> = [];
  const state: FeedState = { stopped: false, wake: () => {} };
  let markLoaded = () => {};
  const loaded = new Promise<void>((resolve) => (markLoaded = resolve));
  const started = connectLoop(options, state, (watch) => {
    for (const listener of listeners) watch.onRevocation(listener);
    void watch.loaded.then(markLoaded);
  });
  const unobserve = options.meter ? observeStaleness(options.meter, state) : () => undefined;
  return {
    view: { status: (token) => state.watch?.status(token) ?? "unknown" },
    readiness: {
      name: "revocations",
      check: async () => {
        if (!state.watch?.isLoaded())
          throw new Error("the revocation list has not been loaded yet");
      },
    },
    loaded,
    bucket: () => state.kv,
    watch: () => state.watch,
    onRevocation: (listener) => {
      listeners.push(listener);
      state.watch?.onRevocation(listener);
    },
    stop: async () => {
      unobserve();
      state.stopped = true;
      state.wake();
      await started;
      await state.watch?.stop();
      if (state.nc && !options.connection) await drainNats(state.nc, { timeoutMs: 2_000 });
    },
  };
}

/**
 * `auth.revocation_list.staleness`: seconds since this process last confirmed that its revocation
 * list holds everything in the bucket (about a second while the watch is healthy). It is how late
 * a revocation can take effect in this process; nothing is observed before the first load.
 */
function observeStaleness(meter: Meter, state: FeedState): () => void {
  const gauge = meter.createObservableGauge("auth.revocation_list.staleness", {
    unit: "s",
    description: "Seconds since the revocation list was last confirmed complete",
  });
  const callback = (result: { observe(value: number): void }) => {
    const ago = state.watch?.health().confirmedAgoMs;
    if (ago !== null && ago !== undefined) result.observe(ago / 1_000);
  };
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
}

interface FeedState {
  stopped: boolean;
  wake: () => void;
  nc?: NatsConnection;
  kv?: KV;
  watch?: RevocationWatch;
}

async function connectLoop(
  options: RevocationFeedOptions,
  state: FeedState,
  onWatch: (watch: RevocationWatch) => void,
): Promise<void> {
  const bucket = names(options.config.NATS_NAMESPACE).revocationsBucket;
  while (!state.stopped) {
    try {
      state.nc ??=
        options.connection ??
        (await connectNats({
          ...natsConnectSettings(options.config),
          name: options.name,
          logger: options.logger,
        }));
      state.kv = await openKv(state.nc, bucket, {
        ...REVOCATION_BUCKET_OPTIONS,
        topology: jetStreamTopology(options.config),
      });
      if (state.stopped) return;
      state.watch = watchRevocations({
        kv: state.kv,
        logger: options.logger,
        ...(options.config.REVOCATION_MAX_STALENESS_MS !== undefined && {
          maxStalenessMs: options.config.REVOCATION_MAX_STALENESS_MS,
        }),
        ...(options.probeIntervalMs !== undefined && { probeIntervalMs: options.probeIntervalMs }),
        ...(options.restartAfterMs !== undefined && { restartAfterMs: options.restartAfterMs }),
      });
      onWatch(state.watch);
      return;
    } catch (err) {
      options.logger.warn({ err, bucket }, "revocation feed cannot reach NATS yet; retrying");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.retryDelayMs ?? 2_000);
        state.wake = () => (clearTimeout(timer), resolve());
      });
    }
  }
}
