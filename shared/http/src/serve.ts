import type { RequestListener } from "node:http";
import type { Logger } from "@svc/logging";
import { internalEndpoints, type ReadinessCheck } from "./internal.ts";
import { listen, type HttpLimits, type RunningServer } from "./server.ts";
import type { Shutdown } from "./shutdown.ts";

export interface ServeOptions {
  logger: Logger;
  shutdown: Shutdown;
  /** The public API (null for a process without one, such as the dispatcher). */
  app: RequestListener | null;
  port: number;
  internalPort: number;
  readiness: ReadinessCheck[];
  /**
   * Warmed once the checks pass, before readiness turns true (bounded; its outcome is logged).
   * Why: docs/decisions/cold-start-warm-up.md.
   */
  warmUp?: ServeWarmUp;
  /** Extra internal routes, e.g. /metrics. */
  internalRoutes?: Record<string, RequestListener>;
  /** Slow-client timeouts and the connection cap of both listeners (`httpLimits(config)`). */
  limits: HttpLimits;
  /** How long in-flight requests get to finish once shutdown starts. */
  drainMs?: number;
}

/** The warm-up of a process with an API: `run` gets the API's loopback origin once it listens. */
export interface ServeWarmUp {
  /** `signal` aborts once the bound has passed: start no new work. */
  run: (api: { origin: string; signal: AbortSignal }) => Promise<void>;
  /** Longest wait before readiness (WARM_UP_MAX_MS); 0 skips the warm-up. */
  timeoutMs: number;
  /** Called once the run has ended, however it ended (at once when skipped). */
  onSettled?: () => void;
}

export interface Serving {
  api: RunningServer | undefined;
  internal: RunningServer;
}

/**
 * Listens on the API and internal ports and registers the first shutdown steps: readiness turns
 * to 503, then the API stops accepting and drains. Steps main.ts adds later (consumers, pools)
 * run after these, so nothing is closed under an in-flight request.
 */
export async function serve(options: ServeOptions): Promise<Serving> {
  let draining = false;
  let apiListening: (origin: string) => void = () => undefined;
  const apiOrigin = new Promise<string>((resolve) => (apiListening = resolve));
  const warmUp = options.warmUp?.timeoutMs ? options.warmUp : undefined;
  if (!warmUp) options.warmUp?.onSettled?.();
  const internal = await listen(
    internalEndpoints({
      readiness: options.readiness,
      isDraining: () => draining,
      ...(warmUp
        ? {
            warmUp: {
              run: async (signal) => {
                try {
                  await warmUp.run({ origin: await apiOrigin, signal });
                } finally {
                  warmUp.onSettled?.();
                }
              },
              timeoutMs: warmUp.timeoutMs,
              onSettled: ({ result, durationMs, error }) => {
                if (result === "ok") options.logger.info({ durationMs }, "warm-up done");
                // Shutting down closes the API under it: not a problem to report.
                else if (draining) options.logger.info({ durationMs }, "warm-up cut by shutdown");
                else
                  options.logger.warn(
                    { durationMs, ...(error ? { err: error } : {}) },
                    `warm-up ${result}; ready without it`,
                  );
              },
            },
          }
        : {}),
      ...(options.internalRoutes ? { extra: options.internalRoutes } : {}),
    }),
    options.internalPort,
    undefined,
    options.limits,
  );
  const api = options.app
    ? await listen(options.app, options.port, undefined, options.limits)
    : undefined;
  if (api) apiListening(`http://127.0.0.1:${api.port}`);
  options.shutdown.add("stop accepting requests", async () => {
    draining = true;
    await api?.close(options.drainMs ?? 10_000);
  });
  options.logger.info({ port: api?.port, internal_port: internal.port }, "listening");
  return { api, internal };
}

/** The internal listener closes last, so probes answer until the very end. */
export function closeInternalLast(shutdown: Shutdown, serving: Serving): void {
  shutdown.add("internal endpoints", () => serving.internal.close(1_000));
}

/** Prints a configuration failure for a person and exits: every main.ts, before a logger exists. */
export function exitOnStartupError(service: string, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`${service}: failed to start: ${message}\n`);
  process.exit(1);
}
