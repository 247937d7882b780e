import express from "express";
import { createHttpApp } from "@svc/http";
import type { Logger } from "@svc/logging";
import type { TokenVerifier } from "@svc/auth";
import type { LegacyDb } from "@svc/db";
import type pg from "pg";
import { SERVICE_NAME, SERVICE_VERSION, type Config } from "./config.ts";

/** Everything the practices read API needs, built by main.ts (or a test) and passed in. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  verify: TokenVerifier;
  legacy: LegacyDb;
  pool: pg.Pool;
}

/** Builds the practices read API's express app; never listens (main.ts and the tests do). */
export function createApp(deps: AppDeps): express.Express {
  const routes = express.Router();
  return createHttpApp({
    platform: { service: SERVICE_NAME, version: SERVICE_VERSION, environment: deps.config.ENVIRONMENT },
    logger: deps.logger,
    routes,
  });
}
