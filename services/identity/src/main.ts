import { createMetrics, metricsPushEnabled } from "@svc/telemetry";
import { createLogger } from "@svc/logging";
import {
  closeInternalLast,
  exitOnStartupError,
  serve,
  Shutdown,
  type ReadinessCheck,
  httpLimits,
} from "@svc/http";
import { createCachedTokenVerifier, remoteKeys, startRevocationFeed } from "@svc/auth";
import { createPgPool, openPgConnections, runMigrations } from "@svc/db";
import { connectNats, drainNats, names, natsConnectSettings } from "@svc/messaging";
import { loadConfig, SERVICE_NAME, SERVICE_VERSION, type Config } from "./config.ts";
import { createApp } from "./app.ts";
import { MIGRATIONS_FOLDER } from "./store/migrations.ts";
import { PgIdempotencyStore } from "./store/pg-idempotency-store.ts";
import { startIdempotencyPruner } from "./workers/idempotency-pruner.ts";
import { identityDb } from "./store/db.ts";
import { idempotencyKeys } from "./store/schema.ts";
import { startOutboxRelay } from "./workers/outbox-relay.ts";
import { NatsVacancyDirectory } from "./messaging/nats-vacancy-directory.ts";

// Composition root: config → logger → dependencies → app → listen → graceful shutdown.
let config: Config;
try {
  config = loadConfig();
} catch (err) {
  exitOnStartupError(SERVICE_NAME, err);
}
const logger = createLogger({ service: SERVICE_NAME, level: config.LOG_LEVEL });
const shutdown = new Shutdown(logger);
const metrics = createMetrics({
  serviceName: SERVICE_NAME,
  serviceVersion: SERVICE_VERSION,
  environment: config.ENVIRONMENT,
  otlp: metricsPushEnabled(config),
});
// Revocations (auth's KV bucket): a revoked client's tokens are refused within seconds.
const revocations = startRevocationFeed({
  config,
  name: SERVICE_NAME,
  logger,
  meter: metrics.meter,
});
const keys = remoteKeys(config.AUTH_JWKS_URL);
const verify = createCachedTokenVerifier({
  keys,
  issuer: config.TOKEN_ISSUER,
  audience: config.TOKEN_AUDIENCE,
  revocation: revocations.view,
});
const pool = createPgPool({
  url: config.DATABASE_URL,
  schema: SERVICE_NAME,
  applicationName: SERVICE_NAME,
  max: config.DATABASE_POOL_MAX,
});
if (config.MIGRATE_ON_START)
  await runMigrations(pool, { schema: SERVICE_NAME, migrationsFolder: MIGRATIONS_FOLDER });
const nc = await connectNats({
  ...natsConnectSettings(config),
  name: SERVICE_NAME,
  logger,
  // A vacancy request per application and a publish per event: no caller stack captured for each
  // (docs/decisions/application-write-path.md).
  asyncTraces: false,
});
const vacancies = new NatsVacancyDirectory({
  nc,
  subject: names(config.NATS_NAMESPACE).rpc.vacancyExists,
  timeoutMs: config.VACANCY_LOOKUP_TIMEOUT_MS,
});
const now = () => new Date();
const readiness: ReadinessCheck[] = [
  { name: "database", check: async () => void (await pool.query("SELECT 1")) },
  { name: "nats", check: () => nc.flush() },
];
// Only until the revocation list first loads; later NATS outages do not fail it.
readiness.push(revocations.readiness);

// Events are written to the outbox with each change; this publishes them.
const relay = await startOutboxRelay({
  settings: config,
  schema: SERVICE_NAME,
  pool,
  nc,
  logger,
  meter: metrics.meter,
});

const serving = await serve({
  logger,
  shutdown,
  app: createApp({ meter: metrics.meter, config, logger, verify, pool, vacancies, now }),
  port: config.PORT,
  internalPort: config.INTERNAL_PORT,
  limits: httpLimits(config),
  readiness,
  // Its API writes, so no reads through it: the pool's connections and auth's keys only.
  // Why: docs/decisions/cold-start-warm-up.md.
  warmUp: {
    run: async () => {
      // The keys best effort: jose fetches them again when a request needs them.
      await Promise.all([
        openPgConnections(pool, config.DATABASE_POOL_MAX),
        keys.reload().catch(() => undefined),
      ]);
    },
    timeoutMs: config.WARM_UP_MAX_MS,
  },
  internalRoutes: { "/metrics": metrics.handler },
});
const pruner = startIdempotencyPruner({
  store: new PgIdempotencyStore(identityDb(pool), idempotencyKeys),
  now,
  logger,
});
shutdown.add("idempotency pruner", () => pruner.stop());
shutdown.add("outbox relay", () => relay.stop());
shutdown.add("nats", () => drainNats(nc));
shutdown.add("revocation feed", () => revocations.stop());
shutdown.add("database", () => pool.end());
shutdown.add("metrics", () => metrics.shutdown());
closeInternalLast(shutdown, serving);
shutdown.installSignalHandlers();
