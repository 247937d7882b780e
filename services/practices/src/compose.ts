import { startEventPipeline } from "@svc/events";
import type { Host, NatsResource, PgResource, ProcessTask } from "@svc/host";
import { SERVICE_NAME, type Config } from "./config.ts";
import { MysqlPracticeFeed } from "./source/mysql-practice-feed.ts";
import { countingDb, practiceSourceFor } from "./source/mysql-practice-source.ts";
import { PgCrmMirrorStore } from "./store/pg-crm-mirror-store.ts";
import { PracticeChangeSource } from "./workers/practice-change-source.ts";

/** What the practices process's adapters and tasks use of its host (@svc/host). */
export type PracticesHost = Host<
  Config,
  { legacy: true; pg: PgResource; nats: NatsResource; leadership: string }
>;

/** Both practice sources, the CRM mirror and the clock. */
export function practicesAdapters(host: PracticesHost) {
  // Counts and page marks on a small pool of their own (docs/decisions/growth.md).
  const counting = countingDb(host.config, host.meter);
  host.onShutdown("legacy database, counts", () => counting.close());
  const now = () => Date.now();
  return {
    practices: practiceSourceFor(host.legacy, host.config, now, counting),
    crmMirror: new PgCrmMirrorStore(host.pool, { now }),
    now,
  };
}

/**
 * Practice events: change detection over both legacy sources, a task of the leader group (one
 * replica at a time), and the outbox relay to the events stream in every replica. NATS is not a
 * readiness check: the read API does not need it, and events wait in the outbox while it is away.
 */
export function practicesTasks(host: PracticesHost): ProcessTask[] {
  const { config, pool, nc, logger, meter, leader, legacy } = host;
  return [
    {
      name: "outbox relay",
      start: () =>
        startEventPipeline({
          settings: config,
          schema: SERVICE_NAME,
          pool,
          nc,
          logger,
          meter,
          source: new PracticeChangeSource(new MysqlPracticeFeed(legacy)),
          leader,
        }),
    },
  ];
}
