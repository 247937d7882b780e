import type pg from "pg";
import { createLeaderElector } from "@svc/leader";
import type { Logger } from "@svc/logging";
import type { DispatcherConfig } from "../config.ts";
import type { Clock } from "../domain/model.ts";
import { PgRetentionStore } from "../stores/pg-retention-store.ts";
import { startRetention } from "./retention-job.ts";

/** What leads the retention job: the Lease's name, and the advisory lock's name outside a cluster. */
export const RETENTION_LEADERSHIP_NAME = "webhooks-retention";

const DAY_MS = 86_400_000;

/**
 * The retention job as configured (WEBHOOK_RETENTION_*), elected like the operator
 * (LEADER_ELECTION), so one dispatcher replica deletes while the others stand by.
 * WEBHOOK_RETENTION_DAYS=0 starts nothing.
 */
export async function startConfiguredRetention(deps: {
  config: DispatcherConfig;
  pool: pg.Pool;
  clock: Clock;
  logger: Logger;
}): Promise<{ stop(): Promise<void> }> {
  const { config } = deps;
  if (config.WEBHOOK_RETENTION_DAYS === 0) return { stop: async () => {} };
  const elector = await createLeaderElector(config, {
    pool: deps.pool,
    logger: deps.logger,
    name: RETENTION_LEADERSHIP_NAME,
  });
  return startRetention({
    store: new PgRetentionStore(deps.pool),
    elector,
    clock: deps.clock,
    logger: deps.logger,
    settings: {
      retentionMs: config.WEBHOOK_RETENTION_DAYS * DAY_MS,
      batchSize: config.WEBHOOK_RETENTION_BATCH_SIZE,
      everyMs: config.WEBHOOK_RETENTION_SWEEP_MS,
    },
  });
}
