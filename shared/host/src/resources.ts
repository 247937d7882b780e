import type { RequestListener } from "node:http";
import { createNoopMeter, type Meter } from "@opentelemetry/api";
import {
  createCachedTokenVerifier,
  remoteKeys,
  startRevocationFeed,
  warmUpAccess,
  type RevocationFeed,
} from "@svc/auth";
import { createLegacyDb, createPgPool, runMigrations } from "@svc/db";
import {
  httpLimits,
  serveInternal,
  type InternalServing,
  type ReadinessCheck,
  type Shutdown,
} from "@svc/http";
import { createLeaderGroup, type ElectionSettings } from "@svc/leader";
import type { Logger } from "@svc/logging";
import { connectNats, drainNats, natsConnectSettings } from "@svc/messaging";
import { createMetrics, metricsPushEnabled } from "@svc/telemetry";
import type {
  InternalSettings,
  LegacySettings,
  PgSettings,
  ProcessSettings,
  Resources,
  RevocationSettings,
  TokenSettings,
} from "./spec.ts";
import { electionName } from "./spec.ts";
import type { StartSteps } from "./start-steps.ts";

/** The host's state while it starts: what the process's functions receive as their host. */
export type HostState = {
  name: string;
  version: string;
  config: ProcessSettings;
  logger: Logger;
  meter: Meter;
  onShutdown(name: string, stop: () => Promise<void>): void;
  /** The name of the process's election, once its leader group exists. */
  election?: string;
  [resource: string]: unknown;
};

/** The readiness of the process: the checks (read at each probe) and the warm-up's late parts. */
export interface Readiness {
  checks: ReadinessCheck[];
  routes: Record<string, RequestListener>;
  /** Resolved once the process has started: /readyz answers `starting` until then. */
  booted: () => void;
  starting: Promise<void>;
  warmUp?: { run?: InternalWarmUpRun; ended: boolean; end?: () => void };
}

type InternalWarmUpRun = (api: { origin: string; signal: AbortSignal }) => Promise<void>;

export function readinessState(withWarmUp: boolean): Readiness {
  let booted = () => {};
  const starting = new Promise<void>((resolve) => (booted = resolve));
  return {
    checks: [],
    routes: {},
    booted: () => booted(),
    starting,
    ...(withWarmUp && { warmUp: { ended: false } }),
  };
}

/**
 * The internal port first (so it closes last: probes answer until the end), then metrics. The
 * warm-up is known before the process's adapters are, so its run and end are read late.
 */
export async function startInternal(
  host: HostState,
  steps: StartSteps,
  shutdown: Shutdown,
  readiness: Readiness,
): Promise<InternalServing> {
  const config = host.config as ProcessSettings & InternalSettings;
  const warm = readiness.warmUp;
  const internal = await steps.step("internal endpoints", () =>
    serveInternal({
      logger: host.logger,
      shutdown,
      internalPort: config.INTERNAL_PORT,
      limits: httpLimits(config),
      readiness: readiness.checks,
      internalRoutes: readiness.routes,
      starting: readiness.starting,
      ...(warm && {
        warmUp: {
          run: (api) => (warm.run ? warm.run(api) : Promise.resolve()),
          timeoutMs: config.WARM_UP_MAX_MS,
          onSettled: () => {
            warm.ended = true;
            warm.end?.();
          },
        },
      }),
    }),
  );
  host.logger.info({ step: "internal endpoints" }, "started");
  const metrics = await steps.step(
    "metrics",
    () =>
      createMetrics({
        serviceName: host.name,
        serviceVersion: host.version,
        environment: config.ENVIRONMENT,
        otlp: metricsPushEnabled(config),
        exportIntervalMs: config.OTEL_METRIC_EXPORT_INTERVAL,
      }),
    (m) => m.shutdown(),
  );
  readiness.routes["/metrics"] = metrics.handler;
  host.meter = metrics.meter;
  return internal;
}

/** A process without an internal port records nothing. */
export const noMetrics = (): Meter => createNoopMeter();

/** The declared resources, in the order of ResourcesFor: each registers its stop and checks. */
export async function startResources(
  host: HostState,
  resources: Resources,
  steps: StartSteps,
  readiness: Readiness,
): Promise<void> {
  const { logger, meter, name } = host;
  if (resources.legacy) {
    const config = host.config as ProcessSettings & LegacySettings;
    const legacy = await steps.step(
      "legacy database",
      () =>
        createLegacyDb({
          url: config.LEGACY_DATABASE_URL,
          connectTimeoutMs: config.LEGACY_CONNECT_TIMEOUT_MS,
          queryTimeoutMs: config.LEGACY_QUERY_TIMEOUT_MS,
          connectionLimit: config.LEGACY_POOL_MAX,
          meter,
        }),
      (db) => db.close(),
    );
    readiness.checks.push({ name: "legacy-database", check: () => legacy.ping() });
    host.legacy = legacy;
  }
  if (resources.pg) await startPg(host, resources.pg, steps, readiness);
  if (resources.nats) {
    const { readiness: checked, asyncTraces } = resources.nats;
    const config = host.config as ProcessSettings & RevocationSettings;
    const nc = await steps.step(
      "nats",
      () =>
        connectNats({
          ...natsConnectSettings(config),
          name,
          logger,
          ...(asyncTraces === false && { asyncTraces }),
        }),
      (connection) => drainNats(connection),
    );
    if (checked) readiness.checks.push({ name: "nats", check: () => nc.flush() });
    host.nc = nc;
  }
  if (resources.revocations || resources.tokens) {
    const config = host.config as ProcessSettings & RevocationSettings;
    const feed = await steps.step(
      "revocation feed",
      () => startRevocationFeed({ config, name, logger, meter }),
      (started) => started.stop(),
    );
    // Only until the revocation list first loads; later NATS outages do not fail it.
    readiness.checks.push(feed.readiness);
    host.revocations = feed;
  }
  if (resources.tokens) startTokens(host, resources.tokens.warmUpScopes, readiness);
  if (resources.leadership) {
    host.election = electionName(resources.leadership, host.config);
    host.leader = await createLeaderGroup(host.config as ProcessSettings & ElectionSettings, {
      pool: host.pool as Parameters<typeof createLeaderGroup>[1]["pool"],
      logger,
      name: host.election,
    });
  }
}

async function startPg(
  host: HostState,
  resource: NonNullable<Resources["pg"]>,
  steps: StartSteps,
  readiness: Readiness,
): Promise<void> {
  const config = host.config as ProcessSettings & PgSettings;
  const pool = await steps.step(
    "database",
    () =>
      createPgPool({
        url: config.DATABASE_URL,
        schema: resource.schema,
        applicationName: host.name,
        max: config.DATABASE_POOL_MAX,
      }),
    (p) => p.end(),
  );
  if (config.MIGRATE_ON_START)
    await steps.step("migrations", () =>
      runMigrations(pool, { schema: resource.schema, migrationsFolder: resource.migrations }),
    );
  readiness.checks.push({
    name: "database",
    check: async () => void (await pool.query("SELECT 1")),
  });
  host.pool = pool;
}

/** auth's keys and the verifier over them and the revocation list; the warm-up's credential. */
function startTokens(
  host: HostState,
  warmUpScopes: ReadonlyArray<string> | undefined,
  readiness: Readiness,
): void {
  const config = host.config as ProcessSettings & TokenSettings;
  const keys = remoteKeys(config.AUTH_JWKS_URL);
  const verify = createCachedTokenVerifier({
    keys,
    issuer: config.TOKEN_ISSUER,
    audience: config.TOKEN_AUDIENCE,
    revocation: (host.revocations as RevocationFeed).view,
  });
  host.keys = keys;
  host.verify = verify;
  if (!warmUpScopes) return;
  // Until the warm-up has settled the API also takes this in-process credential.
  const access = warmUpAccess(verify, warmUpScopes);
  host.verify = access.verify;
  host.warmUpAccess = access;
  const warm = readiness.warmUp;
  if (!warm || warm.ended) access.end();
  else warm.end = access.end;
}
