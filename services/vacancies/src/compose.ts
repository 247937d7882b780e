import { startEventPipeline } from "@svc/events";
import type { Host, NatsResource, PgResource, ProcessTask } from "@svc/host";
import { SERVICE_NAME, type Config } from "./config.ts";
import { serveVacancyExists } from "./messaging/vacancy-exists.ts";
import { MysqlVacancyFeed } from "./source/mysql-vacancy-feed.ts";
import { countingDb, vacancySourceFor } from "./source/mysql-vacancy-source.ts";
import { VacancyChangeSource } from "./workers/vacancy-change-source.ts";

/** What the vacancies process's adapters and tasks use of its host (@svc/host). */
export type VacanciesHost = Host<
  Config,
  { legacy: true; pg: PgResource; nats: NatsResource; leadership: string }
>;

/** The vacancy source (the API's and the vacancy-exists responder's) and the clock. */
export function vacanciesAdapters(host: VacanciesHost) {
  // Counts and page marks on a small pool of their own (docs/decisions/growth.md).
  const counting = countingDb(host.config, host.meter);
  host.onShutdown("legacy database, counts", () => counting.close());
  return {
    vacancies: vacancySourceFor(host.legacy, host.config, Date.now, counting),
    now: Date.now,
  };
}

/**
 * The vacancy-exists responder (identity's NATS requests), and vacancy events: change detection
 * over the legacy source, a task of the leader group (one replica at a time), and the outbox
 * relay to the events stream in every replica. NATS is not a readiness check: a NATS outage must
 * not take vacancy reads offline (the client reconnects on its own).
 */
export function vacanciesTasks(
  host: VacanciesHost,
  adapters: ReturnType<typeof vacanciesAdapters>,
): ProcessTask[] {
  const { config, pool, nc, logger, meter, leader, legacy } = host;
  return [
    {
      name: "vacancy-exists responder",
      start: () => serveVacancyExists(nc, config.NATS_NAMESPACE, adapters.vacancies, logger),
    },
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
          source: new VacancyChangeSource(new MysqlVacancyFeed(legacy, config.TIME_ZONE)),
          leader,
        }),
    },
  ];
}
