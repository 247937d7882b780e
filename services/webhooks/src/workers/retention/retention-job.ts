import type { LeaderTask } from "@svc/leader";
import type { Logger } from "@svc/logging";
import type { Clock } from "../../domain/model.ts";
import type { EventCursor, EventSweep, RetentionStore } from "../../domain/ports.ts";
import { sleep } from "@svc/time";

export type RetentionSettings = {
  /** Finished deliveries older than this go. */
  retentionMs: number;
  /** Events no delivery references go once older than this (they leave the events feed then). */
  eventsRetentionMs: number;
  /** Rows per statement. */
  batchSize: number;
};

export type RetentionRun = {
  deliveries: number;
  portalSessions: number;
  events: number;
  statements: number;
};

/**
 * One retention pass: finished deliveries first (so their events become unreferenced), portal
 * sessions that ended as long ago, then events. Between statements it rests as long as the last one took (at most half the
 * database time goes to retention, however large the backlog) and stops early when `signal` aborts.
 */
export async function purgeExpired(
  store: RetentionStore,
  settings: RetentionSettings,
  now: Date,
  signal?: AbortSignal,
): Promise<RetentionRun> {
  const cutoff = new Date(now.getTime() - settings.retentionMs);
  const eventsCutoff = new Date(now.getTime() - settings.eventsRetentionMs);
  const run: RetentionRun = { deliveries: 0, portalSessions: 0, events: 0, statements: 0 };
  const paced = async <T>(statement: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await statement();
    run.statements++;
    await sleep(Math.max(5, performance.now() - started), signal);
    return result;
  };
  for (;;) {
    if (signal?.aborted) return run;
    const deleted = await paced(() => store.purgeFinishedDeliveries(cutoff, settings.batchSize));
    run.deliveries += deleted;
    if (deleted < settings.batchSize) break;
  }
  for (;;) {
    if (signal?.aborted) return run;
    const deleted = await paced(() => store.purgeEndedPortalSessions(cutoff, settings.batchSize));
    run.portalSessions += deleted;
    if (deleted < settings.batchSize) break;
  }
  let cursor: EventCursor | null = null;
  for (;;) {
    if (signal?.aborted) return run;
    const sweep: EventSweep = await paced(() =>
      store.purgeUnreferencedEvents(eventsCutoff, settings.batchSize, cursor),
    );
    run.events += sweep.deleted;
    if (sweep.scanned < settings.batchSize || sweep.last === null) return run;
    cursor = sweep.last;
  }
}

export type RetentionDeps = {
  store: RetentionStore;
  clock: Clock;
  logger: Logger;
  settings: RetentionSettings & { everyMs: number };
};

/**
 * The retention job as a task of the dispatcher's leader group, so it runs on the elected replica
 * only (one process deletes; the others wait as candidates): purgeExpired at once when elected
 * and then every `everyMs`. A failed pass is logged and retried on the next round; leadership is
 * kept. Losing leadership or stopping the group ends a running pass between statements.
 */
export function retentionTask(deps: RetentionDeps): LeaderTask {
  const { logger, settings } = deps;
  const lead = async (signal: AbortSignal) => {
    while (!signal.aborted) {
      try {
        const run = await purgeExpired(deps.store, settings, deps.clock.now(), signal);
        if (run.deliveries > 0 || run.portalSessions > 0 || run.events > 0)
          logger.info(
            {
              ...run,
              retention_ms: settings.retentionMs,
              events_retention_ms: settings.eventsRetentionMs,
            },
            "retention: deleted finished deliveries, ended portal sessions and unreferenced events",
          );
      } catch (err) {
        if (!signal.aborted) logger.warn({ err }, "retention pass failed; retrying next round");
      }
      await sleep(settings.everyMs, signal);
    }
  };
  return { name: "retention", run: lead };
}
