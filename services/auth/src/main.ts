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
import { startRevocationFeed } from "@svc/auth";
import { createPgPool, runMigrations } from "@svc/db";
import {
  LOCAL_SIGNING_KEYS_DIR,
  loadConfig,
  SERVICE_NAME,
  SERVICE_VERSION,
  type Config,
} from "./config.ts";
import { createApp } from "./app.ts";
import { MIGRATIONS_FOLDER } from "./store/migrations.ts";
import { createDummyHash } from "./domain/clients/credentials.ts";
import { PgClientStore } from "./store/pg-client-store.ts";
import { ensureLocalSigningKeys } from "./domain/keys/local-keys.ts";
import { loadSigningKeys, type SigningKeys } from "./domain/keys/signing-keys.ts";
import { scheduleReconciliation } from "./messaging/revocation-publisher.ts";

// Composition root: config → logger → dependencies → app → listen → graceful shutdown.
let config: Config;
let keys: SigningKeys;
try {
  config = loadConfig();
  // Kubernetes mounts the keys (SIGNING_KEYS_DIR); on one machine they are generated once and kept.
  if (config.SIGNING_KEYS_DIR === undefined) await ensureLocalSigningKeys(LOCAL_SIGNING_KEYS_DIR);
  keys = await loadSigningKeys(config.SIGNING_KEYS_DIR ?? LOCAL_SIGNING_KEYS_DIR);
} catch (err) {
  exitOnStartupError(SERVICE_NAME, err);
}
const logger = createLogger({ service: SERVICE_NAME, level: config.LOG_LEVEL });
logger.info(
  { active_kid: keys.active.kid, published_kids: keys.jwks.keys.map((k) => k.kid) },
  "signing keys loaded",
);
const shutdown = new Shutdown(logger);
const metrics = createMetrics({
  serviceName: SERVICE_NAME,
  serviceVersion: SERVICE_VERSION,
  environment: config.ENVIRONMENT,
  otlp: metricsPushEnabled(config),
});
const pool = createPgPool({
  url: config.DATABASE_URL,
  schema: SERVICE_NAME,
  applicationName: SERVICE_NAME,
  max: config.DATABASE_POOL_MAX,
});
if (config.MIGRATE_ON_START)
  await runMigrations(pool, { schema: SERVICE_NAME, migrationsFolder: MIGRATIONS_FOLDER });
const revocations = startRevocationFeed({
  config,
  name: SERVICE_NAME,
  logger,
  meter: metrics.meter,
});
const reconciliation = scheduleReconciliation(revocations, {
  store: new PgClientStore(pool),
  logger,
  intervalMs: config.REVOCATION_RECONCILE_INTERVAL_MS,
});
const readiness: ReadinessCheck[] = [
  { name: "database", check: async () => void (await pool.query("SELECT 1")) },
  revocations.readiness,
];

const app = createApp({
  meter: metrics.meter,
  config,
  logger,
  pool,
  keys,
  dummyHash: await createDummyHash(),
  revocations,
});
const serving = await serve({
  logger,
  shutdown,
  app,
  port: config.PORT,
  internalPort: config.INTERNAL_PORT,
  limits: httpLimits(config),
  readiness,
  internalRoutes: { "/metrics": metrics.handler },
});
shutdown.add("revocation reconciliation", () => reconciliation.stop());
shutdown.add("revocation feed", () => revocations.stop());
shutdown.add("database", () => pool.end());
shutdown.add("metrics", () => metrics.shutdown());
closeInternalLast(shutdown, serving);
shutdown.installSignalHandlers();
