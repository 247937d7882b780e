import type pg from "pg";
import type { Meter } from "@opentelemetry/api";
import { startOutboxRelay } from "@svc/events";
import type { ProcessTask } from "@svc/host";
import type { Logger } from "@svc/logging";
import { names, type NatsConnection } from "@svc/messaging";
import { SERVICE_NAME, type Config } from "./config.ts";
import { NatsVacancyDirectory } from "./messaging/nats-vacancy-directory.ts";
import { identityDb } from "./store/db.ts";
import { PgIdempotencyStore } from "./store/pg-idempotency-store.ts";
import { idempotencyKeys } from "./store/schema.ts";
import { startIdempotencyPruner } from "./workers/idempotency-pruner.ts";

/** What the identity process's adapters and tasks use of its host (@svc/host). */
export interface IdentityHost {
  config: Config;
  logger: Logger;
  meter: Meter;
  pool: pg.Pool;
  nc: NatsConnection;
}

/** The identity service's adapters besides the pool: the vacancies service, the clock. */
export function identityAdapters(host: IdentityHost) {
  return {
    vacancies: new NatsVacancyDirectory({
      nc: host.nc,
      subject: names(host.config.NATS_NAMESPACE).rpc.vacancyExists,
      timeoutMs: host.config.VACANCY_LOOKUP_TIMEOUT_MS,
    }),
    now: () => new Date(),
  };
}

/**
 * Every replica's background work: the outbox relay (events are written to the outbox with each
 * change; it publishes them) and the Idempotency-Key pruner.
 */
export function identityTasks(
  host: IdentityHost,
  adapters: ReturnType<typeof identityAdapters>,
): ProcessTask[] {
  const { config, pool, nc, logger, meter } = host;
  return [
    {
      name: "outbox relay",
      start: () =>
        startOutboxRelay({ settings: config, schema: SERVICE_NAME, pool, nc, logger, meter }),
    },
    {
      name: "idempotency pruner",
      start: () =>
        startIdempotencyPruner({
          store: new PgIdempotencyStore(identityDb(pool), idempotencyKeys),
          now: adapters.now,
          logger,
        }),
    },
  ];
}
