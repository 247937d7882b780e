import type { Logger } from "@svc/logging";
import type { IdempotencyStore } from "../domain/ports.ts";

export interface IdempotencyPruner {
  stop(): Promise<void>;
}

/**
 * Deletes expired Idempotency-Key records now and then every `intervalMs`. Any replica may run it:
 * the DELETE is idempotent. An expired record is already ignored by `reserve`, so a missed round
 * only costs space.
 */
export function startIdempotencyPruner(options: {
  store: IdempotencyStore;
  now: () => Date;
  logger: Logger;
  intervalMs?: number;
}): IdempotencyPruner {
  let running: Promise<void> = Promise.resolve();
  const prune = () => {
    running = options.store
      .pruneExpired(options.now())
      .then((deleted) => {
        if (deleted > 0) options.logger.info({ deleted }, "expired idempotency keys pruned");
      })
      .catch((err: unknown) =>
        options.logger.warn(
          { error_name: (err as Error).name },
          "idempotency key pruning failed; next round retries",
        ),
      );
  };
  prune();
  const timer = setInterval(prune, options.intervalMs ?? 15 * 60_000);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
