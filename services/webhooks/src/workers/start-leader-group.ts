import type pg from "pg";
import type { Meter } from "@opentelemetry/api";
import { createLeaderGroup, type LeaderGroup, type LeaderTask } from "@svc/leader";
import type { Logger } from "@svc/logging";
import type { DispatcherConfig } from "../config.ts";
import type { Clock } from "../domain/model.ts";
import { configuredRetention } from "./retention/start-retention.ts";
import { PgAutoDisableStore } from "../store/pg-auto-disable-store.ts";
import { autoDisabledCounter, autoDisableTask } from "./auto-disable/auto-disable-task.ts";

/**
 * What the dispatcher's one election leads, for all its leader-only work: the `name` of its
 * leadership metric, and the default of LEADER_ELECTION_NAME (the Lease's or advisory lock's name).
 */
export const LEADERSHIP_NAME = "webhooks-dispatcher";

type LeaderTaskDeps = {
  config: DispatcherConfig;
  pool: pg.Pool;
  clock: Clock;
  logger: Logger;
  /** The process's Meter: subscriptions disabled automatically. */
  meter?: Meter | undefined;
};

/**
 * The dispatcher's leader-only work under its one election: the retention job unless
 * WEBHOOK_RETENTION_DAYS=0 and the auto-disable check unless WEBHOOK_AUTO_DISABLE_AFTER_MS=0
 * (compose.ts adds the operator when enabled).
 */
export function dispatcherLeaderTasks(deps: LeaderTaskDeps): LeaderTask[] {
  const tasks: LeaderTask[] = [];
  const retention = configuredRetention(deps);
  if (retention) tasks.push(retention);
  const { config } = deps;
  if (config.WEBHOOK_AUTO_DISABLE_AFTER_MS > 0)
    tasks.push(
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
  return tasks;
}

/** Those tasks in a leader group of their own (LEADER_ELECTION), not yet started. */
export async function createDispatcherLeaderGroup(deps: LeaderTaskDeps): Promise<LeaderGroup> {
  const leader = await createLeaderGroup(deps.config, {
    pool: deps.pool,
    logger: deps.logger,
    name: deps.config.LEADER_ELECTION_NAME,
  });
  for (const task of dispatcherLeaderTasks(deps)) leader.add(task);
  return leader;
}
