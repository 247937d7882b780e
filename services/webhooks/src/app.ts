import type { Meter } from "@opentelemetry/api";
import type express from "express";
import { createHttpApp } from "@svc/http";
import type { Logger } from "@svc/logging";
import type { TokenVerifier } from "@svc/auth";
import { createDrizzle } from "@svc/db";
import type pg from "pg";
import { SERVICE_NAME, SERVICE_VERSION, type Config } from "./config.ts";
import * as schema from "./store/schema.ts";
import type { Clock } from "./domain/model.ts";
import type { DeliveryQueue } from "./domain/ports.ts";
import { SubscriptionService } from "./domain/subscription-service.ts";
import { createRouter } from "./http/router.ts";
import { createUrlGuard } from "./outbound/url-guard.ts";
import type { HostResolver } from "./outbound/resolver.ts";
import { createSecretBox } from "./store/secret-box.ts";
import { PgDeliveryStore } from "./store/pg-delivery-store.ts";
import { PgSubscriptionStore } from "./store/pg-subscription-store.ts";
import { EventFeed } from "./domain/event-feed.ts";
import { PgEventFeedStore } from "./store/pg-event-feed-store.ts";

/** Everything the webhook subscriptions API needs, built by main.ts (or a test) and passed in. */
export interface AppDeps {
  /** Records HTTP request durations (served at /metrics on the internal port). */
  meter?: Meter;
  config: Config;
  logger: Logger;
  verify: TokenVerifier;
  pool: pg.Pool;
  /** Resolves subscription hostnames for the URL guard (tests inject a fake). */
  resolver: HostResolver;
  /** The deliveries work stream (ping and manual redelivery). */
  queue: DeliveryQueue;
  clock: Clock;
}

/** The settings the domain module reads; the API's and the dispatcher's configs both have them. */
export type SubscriptionServiceConfig = Pick<
  Config,
  | "ENVIRONMENT"
  | "PUBLIC_BASE_URL"
  | "WEBHOOK_DNS_TIMEOUT_MS"
  | "WEBHOOK_ALLOW_LOOPBACK_FOR_TESTS"
  | "WEBHOOK_SECRET_KEY"
  | "WEBHOOK_SECRET_ROTATION_OVERLAP_MS"
  | "WEBHOOK_RETENTION_DAYS"
>;

/**
 * The domain module, built from the API's dependencies; the dispatcher's reconciler builds the
 * same.
 */
export function createSubscriptionService(
  deps: Omit<AppDeps, "verify" | "config"> & { config: SubscriptionServiceConfig },
): SubscriptionService {
  const db = createDrizzle(deps.pool, schema);
  const { config } = deps;
  return new SubscriptionService({
    subscriptions: new PgSubscriptionStore(db),
    deliveries: new PgDeliveryStore(db),
    queue: deps.queue,
    guard: createUrlGuard({
      resolver: deps.resolver,
      dnsTimeoutMs: config.WEBHOOK_DNS_TIMEOUT_MS,
      allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK_FOR_TESTS,
    }),
    secretBox: createSecretBox(config.WEBHOOK_SECRET_KEY.base64),
    clock: deps.clock,
    logger: deps.logger,
    environment: config.ENVIRONMENT,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    rotationOverlapMs: config.WEBHOOK_SECRET_ROTATION_OVERLAP_MS,
    retentionMs: config.WEBHOOK_RETENTION_DAYS * 86_400_000,
  });
}

/** Builds the webhook subscriptions API's express app; never listens (main.ts and the tests do). */
export function createApp(deps: AppDeps): express.Express {
  return createHttpApp({
    platform: {
      service: SERVICE_NAME,
      version: SERVICE_VERSION,
      environment: deps.config.ENVIRONMENT,
    },
    logger: deps.logger,
    ...(deps.meter ? { meter: deps.meter } : {}),
    routes: createRouter({
      service: createSubscriptionService(deps),
      feed: new EventFeed({
        store: new PgEventFeedStore(deps.pool),
        clock: deps.clock,
        environment: deps.config.ENVIRONMENT,
        retentionDays: deps.config.WEBHOOK_EVENTS_RETENTION_DAYS,
      }),
      verify: deps.verify,
    }),
  });
}
