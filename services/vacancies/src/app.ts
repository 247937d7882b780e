import type { Meter } from "@opentelemetry/api";
import type express from "express";
import { createHttpApp } from "@svc/http";
import type { Logger } from "@svc/logging";
import type { TokenVerifier } from "@svc/auth";
import { SERVICE_NAME, SERVICE_VERSION, type Config } from "./config.ts";
import { createRouter } from "./http/router.ts";
import { createVacancyReader } from "./domain/vacancy-reader.ts";
import type { VacancySource } from "./domain/ports.ts";

/** Everything the vacancies read API needs, built by main.ts (or a test) and passed in. */
export interface AppDeps {
  /** Records HTTP request durations (served at /metrics on the internal port). */
  meter?: Meter;
  config: Config;
  logger: Logger;
  verify: TokenVerifier;
  vacancies: VacancySource;
  /** Milliseconds since the epoch; "today" for `published` is its date in config.TIME_ZONE. */
  now: () => number;
}

/** Builds the vacancies read API's express app; never listens (main.ts and the tests do). */
export function createApp(deps: AppDeps): express.Express {
  const reader = createVacancyReader({
    source: deps.vacancies,
    zone: deps.config.TIME_ZONE,
    now: deps.now,
    totalsCacheMs: deps.config.VACANCY_TOTALS_CACHE_MS,
  });
  return createHttpApp({
    platform: {
      service: SERVICE_NAME,
      version: SERVICE_VERSION,
      environment: deps.config.ENVIRONMENT,
    },
    logger: deps.logger,
    ...(deps.meter ? { meter: deps.meter } : {}),
    routes: createRouter({ verify: deps.verify, reader }),
  });
}
