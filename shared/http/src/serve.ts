import type { RequestListener } from "node:http";
import type { Logger } from "@svc/logging";
import { internalEndpoints, type ReadinessCheck } from "./internal.ts";
import { listen, type HttpLimits, type RunningServer } from "./server.ts";
import type { Shutdown } from "./shutdown.ts";

export interface ServeInternalOptions {
  logger: Logger;
  shutdown: Shutdown;
  internalPort: number;
  /** Read at each probe: checks may be added while the process starts. */
  readiness: ReadinessCheck[];
  /**
   * Warmed once the checks pass, before readiness turns true (bounded; its outcome is logged).
   * Why: docs/decisions/cold-start-warm-up.md.
   */
  warmUp?: ServeWarmUp;
  /** Resolves once the process has started: /readyz is 503 `starting` until then. */
  starting?: Promise<void>;
  /** Extra internal routes, e.g. /metrics; read at each request, so routes may be added later. */
  internalRoutes?: Record<string, RequestListener>;
  /** Slow-client timeouts and the connection cap of both listeners (`httpLimits(config)`). */
  limits: HttpLimits;
}

export interface ServeApiOptions {
  logger: Logger;
  shutdown: Shutdown;
  app: RequestListener;
  port: number;
  /** The address to bind (default every interface). */
  host?: string;
  limits: HttpLimits;
  /** How long in-flight requests get to finish once shutdown starts. */
  drainMs?: number;
  /** The process's internal endpoints: told the API's origin, and to report draining first. */
  internal?: InternalServing;
}

export type ServeOptions = ServeInternalOptions &
  Omit<ServeApiOptions, "app" | "internal"> & {
    /** The public API (null for a process without one, such as the dispatcher). */
    app: RequestListener | null;
  };

/** The warm-up of a process with an API: `run` gets the API's loopback origin once it listens. */
export interface ServeWarmUp {
  /** `signal` aborts once the bound has passed: start no new work. */
  run: (api: { origin: string; signal: AbortSignal }) => Promise<void>;
  /** Longest wait before readiness (WARM_UP_MAX_MS); 0 skips the warm-up. */
  timeoutMs: number;
  /** Called once the run has ended, however it ended (at once when skipped). */
  onSettled?: () => void;
}

export interface InternalServing {
  server: RunningServer;
  /** The API listens at `origin` (the warm-up's target). */
  apiListening(origin: string): void;
  /** From now on /readyz answers 503 `draining`. */
  drain(): void;
}

export interface Serving {
  api: RunningServer | undefined;
  internal: RunningServer;
}

function logWarmUp(
  logger: Logger,
  draining: () => boolean,
): (outcome: { result: string; durationMs: number; error?: string }) => void {
  return ({ result, durationMs, error }) => {
    if (result === "ok") logger.info({ durationMs }, "warm-up done");
    // Shutting down closes the API under it: not a problem to report.
    else if (draining()) logger.info({ durationMs }, "warm-up cut by shutdown");
    else
      logger.warn(
        { durationMs, ...(error ? { err: error } : {}) },
        `warm-up ${result}; ready without it`,
      );
  };
}

/**
 * Listens on the internal port (/livez, /readyz and the extra routes) and registers its close as
 * a shutdown step: started first, it closes last, so probes answer until the very end.
 */
export async function serveInternal(options: ServeInternalOptions): Promise<InternalServing> {
  let draining = false;
  let apiListening: (origin: string) => void = () => undefined;
  const apiOrigin = new Promise<string>((resolve) => (apiListening = resolve));
  const warmUp = options.warmUp?.timeoutMs ? options.warmUp : undefined;
  if (!warmUp) options.warmUp?.onSettled?.();
  const server = await listen(
    internalEndpoints({
      readiness: options.readiness,
      isDraining: () => draining,
      ...(options.starting && { starting: options.starting }),
      ...(warmUp && {
        warmUp: {
          run: async (signal) => {
            try {
              await warmUp.run({ origin: await apiOrigin, signal });
            } finally {
              warmUp.onSettled?.();
            }
          },
          timeoutMs: warmUp.timeoutMs,
          onSettled: logWarmUp(options.logger, () => draining),
        },
      }),
      ...(options.internalRoutes && { extra: options.internalRoutes }),
    }),
    options.internalPort,
    undefined,
    options.limits,
  );
  options.shutdown.add("internal endpoints", () => server.close(1_000));
  return { server, apiListening, drain: () => void (draining = true) };
}

/**
 * Listens on the API port and registers its shutdown step: readiness turns to 503, then the API
 * stops accepting and drains. Started last, it stops first, so nothing is closed under an
 * in-flight request.
 */
export async function serveApi(options: ServeApiOptions): Promise<RunningServer> {
  const api = await listen(options.app, options.port, options.host, options.limits);
  options.internal?.apiListening(`http://127.0.0.1:${api.port}`);
  options.shutdown.add("stop accepting requests", async () => {
    options.internal?.drain();
    await api.close(options.drainMs ?? 10_000);
  });
  return api;
}

/** The internal endpoints, then the API (when there is one); logs both ports. */
export async function serve(options: ServeOptions): Promise<Serving> {
  const internal = await serveInternal(options);
  const { app } = options;
  const api = app ? await serveApi({ ...options, app, internal }) : undefined;
  if (!api) options.shutdown.add("readiness", async () => internal.drain());
  options.logger.info({ port: api?.port, internal_port: internal.server.port }, "listening");
  return { api, internal: internal.server };
}
