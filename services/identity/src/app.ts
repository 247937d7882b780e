import type { Meter } from "@opentelemetry/api";
import type express from "express";
import { createHttpApp } from "@svc/http";
import type { Logger } from "@svc/logging";
import { callerOf, type TokenVerifier } from "@svc/auth";
import type pg from "pg";
import { SERVICE_NAME, SERVICE_VERSION, type Config } from "./config.ts";
import { createApplication } from "./domain/create-application.ts";
import type { VacancyDirectory } from "./domain/ports.ts";
import { submitApplication } from "./domain/submit-application.ts";
import { createRouter } from "./http/router.ts";
import { idempotency } from "./http/idempotency-middleware.ts";
import { PgIdempotencyStore } from "./store/pg-idempotency-store.ts";
import { createIdentifierHasher } from "./domain/identifiers/lookup-keys.ts";
import { identityDb } from "./store/db.ts";
import { idempotencyKeys } from "./store/schema.ts";
import { PgIdentityQueries } from "./store/pg-identity-queries.ts";
import { PgIdentityStore } from "./store/pg-identity-store.ts";

/** Everything the identity service needs, built by main.ts (or a test) and passed in. */
export interface AppDeps {
  /** Records HTTP request durations (served at /metrics on the internal port). */
  meter?: Meter;
  config: Config;
  logger: Logger;
  verify: TokenVerifier;
  pool: pg.Pool;
  /** The vacancies service (NATS request/reply in main.ts). */
  vacancies: VacancyDirectory;
  /** The clock for every stored instant and event time. */
  now: () => Date;
}

/** The largest body POST /v1/applications needs is well under 2 KiB; anything far bigger is 413. */
const BODY_LIMIT_BYTES = 16 * 1024;

/** Builds the identity service's express app; never listens (main.ts and the tests do). */
export function createApp(deps: AppDeps): express.Express {
  const { config, now } = deps;
  const db = identityDb(deps.pool);
  const store = new PgIdentityStore(db);
  const hash = createIdentifierHasher(config.IDENTITY_PEPPER);
  const routes = createRouter({
    environment: config.ENVIRONMENT,
    verify: deps.verify,
    queries: new PgIdentityQueries(db),
    createApplication: (request) =>
      createApplication(
        { store, vacancies: deps.vacancies, hash, now, publicBaseUrl: config.PUBLIC_BASE_URL },
        request,
      ),
    submitApplication: (uuid) =>
      submitApplication({ store, now, publicBaseUrl: config.PUBLIC_BASE_URL }, uuid),
    idempotency: idempotency({
      store: new PgIdempotencyStore(db, idempotencyKeys),
      clientOf: (res) => callerOf(res.locals).clientId,
      ttlMs: config.IDEMPOTENCY_KEY_TTL_HOURS * 3_600_000,
      waitMs: config.IDEMPOTENCY_WAIT_MS,
      now,
      logger: deps.logger,
    }),
    timeZone: config.TIME_ZONE,
  });
  return createHttpApp({
    platform: { service: SERVICE_NAME, version: SERVICE_VERSION, environment: config.ENVIRONMENT },
    logger: deps.logger,
    ...(deps.meter ? { meter: deps.meter } : {}),
    routes,
    bodyLimitBytes: BODY_LIMIT_BYTES,
  });
}
