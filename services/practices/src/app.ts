import type { Meter } from "@opentelemetry/api";
import type express from "express";
import { createHttpApp } from "@svc/http";
import { TotalsCache } from "@svc/paging";
import type { Logger } from "@svc/logging";
import type { TokenVerifier } from "@svc/auth";
import { calendarToday } from "@svc/time";
import { SERVICE_NAME, SERVICE_VERSION, type Config } from "./config.ts";
import type { CrmMirrorStore, PracticeSource } from "./domain/ports.ts";
import { createRouter } from "./http/router.ts";

/** Everything the practices service needs, built by main.ts (or a test) and passed in. */
export interface AppDeps {
  /** Records HTTP request durations (served at /metrics on the internal port). */
  meter?: Meter;
  config: Config;
  logger: Logger;
  verify: TokenVerifier;
  /** Both practice sources of the legacy primary database. */
  practices: PracticeSource;
  /** The CRM mirror in this service's own schema (used in production only). */
  crmMirror: CrmMirrorStore;
  /** The clock (ms since the epoch): "today" for `active`, the CRM mirror's future bound. */
  now: () => number;
}

/** Builds the practices service's express app; never listens (main.ts and the tests do). */
export function createApp(deps: AppDeps): express.Express {
  const { config, verify, now } = deps;
  // The sandbox has no crm-mirror:write scope, so the mirror's routes do not exist there.
  const crmMirror = config.ENVIRONMENT === "production";
  const reader = {
    source: deps.practices,
    totals: new TotalsCache({ ttlMs: config.PRACTICE_TOTALS_CACHE_MS, now }),
    today: calendarToday(config.TIME_ZONE, now),
  };
  return createHttpApp({
    platform: { service: SERVICE_NAME, version: SERVICE_VERSION, environment: config.ENVIRONMENT },
    logger: deps.logger,
    ...(deps.meter ? { meter: deps.meter } : {}),
    routes: createRouter({
      verify,
      reader,
      crmMirror: crmMirror ? { store: deps.crmMirror, now } : null,
    }),
    // Body parsing is app-wide in @svc/http; only the mirror's bulk endpoint needs more than the
    // default.
    bodyLimitBytes: crmMirror ? config.CRM_MIRROR_BODY_LIMIT_BYTES : undefined,
  });
}
