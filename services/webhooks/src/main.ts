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
import { createPgPool, runMigrations } from "@svc/db";
import { connectNats, drainNats, jetstream, names, natsConnectSettings } from "@svc/messaging";
import { loadConfig, SERVICE_NAME, SERVICE_VERSION, type Config } from "./config.ts";
import { createApp } from "./app.ts";
import { MIGRATIONS_FOLDER } from "./store/migrations.ts";
import { systemClock } from "./domain/model.ts";
import { systemResolver } from "./outbound/resolver.ts";
import { createNatsDeliveryQueue } from "./messaging/nats-delivery-queue.ts";

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
const verify = createCachedTokenVerifier({
  keys: remoteKeys(config.AUTH_JWKS_URL),
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
if (config.WEBHOOK_SECRET_KEY.isDevelopmentKey)
  logger.warn(
    "WEBHOOK_SECRET_KEY is not set: webhook secrets are sealed with the public development key",
  );
// Ping and manual redelivery publish to the deliveries work stream the dispatcher consumes.
const nc = await connectNats({
  ...natsConnectSettings(config),
  name: SERVICE_NAME,
  logger,
});
const queue = createNatsDeliveryQueue(jetstream(nc), names(config.NATS_NAMESPACE));
const readiness: ReadinessCheck[] = [
  { name: "database", check: async () => void (await pool.query("SELECT 1")) },
  { name: "nats", check: () => nc.flush() },
];
// Only until the revocation list first loads; later NATS outages do not fail it.
readiness.push(revocations.readiness);

const serving = await serve({
  logger,
  shutdown,
  app: createApp({
    meter: metrics.meter,
    config,
    logger,
    verify,
    pool,
    resolver: systemResolver(),
    queue,
    clock: systemClock,
  }),
  port: config.PORT,
  internalPort: config.INTERNAL_PORT,
  limits: httpLimits(config),
  readiness,
  internalRoutes: { "/metrics": metrics.handler },
});
shutdown.add("nats", () => drainNats(nc));
shutdown.add("revocation feed", () => revocations.stop());
shutdown.add("database", () => pool.end());
shutdown.add("metrics", () => metrics.shutdown());
closeInternalLast(shutdown, serving);
shutdown.installSignalHandlers();
