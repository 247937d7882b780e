import type { Logger } from "@svc/logging";
import type { Clock } from "../../domain/model.ts";
import type { DeliveryQueue, DispatchStore } from "../../domain/ports.ts";

const BATCH = 500;

/**
 * Queues delivery rounds that were recorded but never published: the API's ping or redelivery
 * when the stream was unreachable, or a fan-out that crashed between the two (its event is
 * redelivered too; the stream de-duplicates on the message id). Safe on every replica at once.
 */
export function startRequeueSweep(deps: {
  store: DispatchStore;
  queue: DeliveryQueue;
  clock: Clock;
  logger: Logger;
  everyMs: number;
}): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const sweep = async () => {
    const now = deps.clock.now();
    const due = await deps.store.findUnqueued(new Date(now.getTime() - deps.everyMs), BATCH);
    for (const { message, trace } of due) {
      await deps.queue.enqueue([message], trace);
      await deps.store.markQueued([message], deps.clock.now());
    }
    if (due.length > 0) deps.logger.info({ count: due.length }, "requeued unqueued deliveries");
  };
  const timer = setInterval(() => {
    if (running) return; // the previous sweep is still going
    running = sweep()
      .catch((err: unknown) =>
        deps.logger.warn({ err }, "requeue sweep failed; retrying next round"),
      )
      .finally(() => (running = undefined));
  }, deps.everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
