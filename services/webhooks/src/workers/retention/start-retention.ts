import type pg from "pg";
import type { LeaderTask } from "@svc/leader";
import type { Logger } from "@svc/logging";
import type { DispatcherConfig } from "../../config.ts";
import type { Clock } from "../../domain/model.ts";
import { PgRetentionStore } from "../../store/pg-retention-store.ts";
import { retentionTask } from "./retention-job.ts";

const DAY_MS = 86_400_000;

/**
 * The retention job as configured (WEBHOOK_RETENTION_*), a task for the dispatcher's leader group
 * (LEADER_ELECTION), so one dispatcher replica deletes while the others stand by.
 * WEBHOOK_RETENTION_DAYS=0: no task.
 */
export function configuredRetention(deps: {
  config: DispatcherConfig;
  pool: pg.Pool;
  clock: Clock;
  logger: Logger;
}): LeaderTask | undefined {
  const { config } = deps;
  if (config.WEBHOOK_RETENTION_DAYS === 0) return undefined;
  return retentionTask({
    store: new PgRetentionStore(deps.pool),
    clock: deps.clock,
    logger: deps.logger,
    settings: {
      retentionMs: config.WEBHOOK_RETENTION_DAYS * DAY_MS,
      eventsRetentionMs: config.WEBHOOK_EVENTS_RETENTION_DAYS * DAY_MS,
      batchSize: config.WEBHOOK_RETENTION_BATCH_SIZE,
      everyMs: config.WEBHOOK_RETENTION_SWEEP_MS,
    },
  });
}
