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
  /** Extra internal routes, e.g. /metrics. */
  internalRoutes?: Record<string, RequestListener>;
  /** Slow-client timeouts and the connection cap of both listeners (`httpLimits(config)`). */
  limits: HttpLimits;
  /** How long in-flight requests get to finish once shutdown starts. */
  drainMs?: number;
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
  const internal = await listen(
    internalEndpoints({
      readiness: options.readiness,
      isDraining: () => draining,
      ...(options.internalRoutes ? { extra: options.internalRoutes } : {}),
    }),
    options.internalPort,
    undefined,
    options.limits,
  );
  const api = options.app
    ? await listen(options.app, options.port, undefined, options.limits)
    : undefined;
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
