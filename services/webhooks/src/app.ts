import type { Meter } from "@opentelemetry/api";
import { createHttpApp } from "@svc/http";
import type { Logger } from "@svc/logging";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import express from "express";
import type { RevocationFeed, TokenVerifier } from "@svc/auth";
import { createDrizzle } from "@svc/db";
import type pg from "pg";
import { SERVICE_NAME, SERVICE_VERSION, type Config } from "./config.ts";
import type { Clock } from "./domain/model.ts";
import type { DeliveryQueue } from "./domain/ports.ts";
import { createRouter } from "./http/router.ts";
import { createSubscriptionService } from "./compose.ts";
import type { HostResolver } from "./outbound/resolver.ts";
import { EventFeed } from "./domain/event-feed.ts";
import { PgEventFeedStore } from "./store/pg-event-feed-store.ts";
import { PortalSessions } from "./domain/portal-sessions.ts";
import { PgPortalSessionStore } from "./store/pg-portal-session-store.ts";
import { createPortalRouter } from "./http/portal-routes.ts";
import type { PortalDeps } from "./http/portal-session-routes.ts";
import { PgSubscriptionStore } from "./store/pg-subscription-store.ts";
import * as schema from "./store/schema.ts";

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
  /** The revocation feed: a revoked client's portal sessions end. Absent (tests): none revoked. */
  revocations?: Pick<RevocationFeed, "view" | "onRevocation">;
}

/**
 * The portal's built files: WEBHOOK_PORTAL_DIR, else packages/portal/dist beside the sources or
 * beside the bundles (dist/webhooks/ in the image), whichever exists.
 */
function portalDir(config: Config): string {
  if (config.WEBHOOK_PORTAL_DIR) return config.WEBHOOK_PORTAL_DIR;
  const candidates = ["../../../packages/portal/dist", "../../packages/portal/dist"].map((p) =>
    fileURLToPath(new URL(p, import.meta.url)),
  );
  return candidates.find((dir) => existsSync(dir)) ?? candidates[0]!;
}

/** Builds the webhook subscriptions API's express app; never listens (main.ts and the tests do). */
export function createApp(deps: AppDeps): express.Express {
  const { config } = deps;
  const service = createSubscriptionService(deps);
  const feed = new EventFeed({
    store: new PgEventFeedStore(deps.pool),
    subscriptions: new PgSubscriptionStore(createDrizzle(deps.pool, schema)),
    clock: deps.clock,
    environment: config.ENVIRONMENT,
    retentionDays: config.WEBHOOK_EVENTS_RETENTION_DAYS,
  });
  const store = new PgPortalSessionStore(createDrizzle(deps.pool, schema));
  const sessions = new PortalSessions({
    store,
    subscriptions: store,
    clock: deps.clock,
    maxTtlSeconds: config.WEBHOOK_PORTAL_SESSION_MAX_TTL_SECONDS,
  });
  // A revoked client's sessions are marked revoked (each replica hears it; the update is idempotent).
  deps.revocations?.onRevocation((revocation) => {
    if (revocation.notAfterMs > deps.clock.now().getTime()) return;
    sessions.revokeClient(revocation.clientId).then(
      (n) => {
        if (n > 0)
          deps.logger.info(
            { audit: "portal", client_id: revocation.clientId, sessions: n },
            "portal sessions of a revoked client revoked",
          );
      },
      (err: unknown) =>
        deps.logger.warn(
          { err, client_id: revocation.clientId },
          "revoking portal sessions failed",
        ),
    );
  });
  const portal: PortalDeps = {
    sessions,
    logger: deps.logger,
    revocation: deps.revocations?.view,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    environment: config.ENVIRONMENT,
    limits: {
      sessionsBurst: config.WEBHOOK_PORTAL_SESSIONS_BURST,
      sessionsPerMinute: config.WEBHOOK_PORTAL_SESSIONS_PER_MINUTE,
      actionsPerMinute: config.WEBHOOK_PORTAL_ACTIONS_PER_MINUTE,
      readsPerMinute: config.WEBHOOK_PORTAL_READS_PER_MINUTE,
    },
  };
  const installation = {
    environment: config.ENVIRONMENT,
    publicBaseUrl: config.PUBLIC_BASE_URL,
  };
  const routes = express.Router();
  routes.use(
    createPortalRouter({ ...portal, service, feed, installation, filesDir: portalDir(config) }),
  );
  routes.use(createRouter({ service, feed, verify: deps.verify, portal, installation }));
  return createHttpApp({
    platform: {
      service: SERVICE_NAME,
      version: SERVICE_VERSION,
      environment: deps.config.ENVIRONMENT,
    },
    logger: deps.logger,
    ...(deps.meter ? { meter: deps.meter } : {}),
    routes,
  });
}
