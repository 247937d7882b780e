import type pg from "pg";
import type { Meter } from "@opentelemetry/api";
import { createLeaderGroup, type LeaderGroup } from "@svc/leader";
import type { Logger } from "@svc/logging";
import type { DispatcherConfig } from "../config.ts";
import type { Clock } from "../domain/model.ts";
import { configuredRetention } from "./retention/start-retention.ts";
import { PgAutoDisableStore } from "../store/pg-auto-disable-store.ts";
import { autoDisabledCounter, autoDisableTask } from "./auto-disable/auto-disable-task.ts";

/**
 * The dispatcher's one election, for all its leader-only work: the Lease's name
 * (LEADER_ELECTION=lease), and the advisory lock's name outside a cluster.
 */
export const LEADERSHIP_NAME = "webhooks-dispatcher";

/**
 * The dispatcher's leader group (LEADER_ELECTION), with the retention job as a task unless
 * WEBHOOK_RETENTION_DAYS=0 and the auto-disable check unless WEBHOOK_AUTO_DISABLE_AFTER_MS=0;
 * dispatcher-main adds the operator when enabled, then starts it.
 */
export async function createDispatcherLeaderGroup(deps: {
  config: DispatcherConfig;
  pool: pg.Pool;
  clock: Clock;
  logger: Logger;
  /** The process's Meter: subscriptions disabled automatically. */
  meter?: Meter | undefined;
}): Promise<LeaderGroup> {
  const leader = await createLeaderGroup(deps.config, {
    pool: deps.pool,
    logger: deps.logger,
    name: LEADERSHIP_NAME,
  });
  const retention = configuredRetention(deps);
  if (retention) leader.add(retention);
  const { config } = deps;
  if (config.WEBHOOK_AUTO_DISABLE_AFTER_MS > 0)
    leader.add(
      autoDisableTask({
        store: new PgAutoDisableStore(deps.pool),
        settings: {
          afterMs: config.WEBHOOK_AUTO_DISABLE_AFTER_MS,
          everyMs: config.WEBHOOK_AUTO_DISABLE_CHECK_MS,
          batchSize: 500,
        },
        clock: deps.clock,
        logger: deps.logger,
        counter: deps.meter && autoDisabledCounter(deps.meter),
      }),
    );
  return leader;
}
