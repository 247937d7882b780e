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
import {
  createCachedTokenVerifier,
  loadRevocationFeedConfig,
  remoteKeys,
  startRevocationFeed,
  warmUpAccess,
} from "@svc/auth";
import { createLegacyDb, createPgPool, runMigrations } from "@svc/db";
import { connectNats, drainNats, natsConnectSettings } from "@svc/messaging";
import { loadConfig, SERVICE_NAME, SERVICE_VERSION, type Config } from "./config.ts";
import { createApp } from "./app.ts";
import { createLeaderGroup } from "@svc/leader";
import { PracticeChangeSource } from "./workers/practice-change-source.ts";
import { startEventPipeline } from "@svc/events";
import { MIGRATIONS_FOLDER } from "./store/migrations.ts";
import { MysqlPracticeFeed } from "./source/mysql-practice-feed.ts";
import { countingDb, practiceSourceFor } from "./source/mysql-practice-source.ts";
import { PgCrmMirrorStore } from "./store/pg-crm-mirror-store.ts";
import { PRACTICES_SCOPE } from "./http/operations.ts";
import { practiceWarmUp } from "./warm-up.ts";

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
  config: loadRevocationFeedConfig(),
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
const legacy = createLegacyDb({
  url: config.LEGACY_DATABASE_URL,
  connectTimeoutMs: config.LEGACY_CONNECT_TIMEOUT_MS,
  queryTimeoutMs: config.LEGACY_QUERY_TIMEOUT_MS,
  connectionLimit: config.LEGACY_POOL_MAX,
  meter: metrics.meter,
});
const pool = createPgPool({
  url: config.DATABASE_URL,
  schema: SERVICE_NAME,
  applicationName: SERVICE_NAME,
  max: config.DATABASE_POOL_MAX,
});
if (config.MIGRATE_ON_START)
  await runMigrations(pool, { schema: SERVICE_NAME, migrationsFolder: MIGRATIONS_FOLDER });
// Counts and page marks on a small pool of their own (docs/decisions/growth.md).
const counting = countingDb(config, metrics.meter);
const now = () => Date.now();
// Until the warm-up has settled the API also takes its in-process credential (warm-up.ts).
const warmUp = warmUpAccess(verify, [PRACTICES_SCOPE]);
const appDeps = {
  meter: metrics.meter,
  config,
  logger,
  verify: warmUp.verify,
  practices: practiceSourceFor(legacy, config, now, counting),
  crmMirror: new PgCrmMirrorStore(pool, { now }),
  now,
};
const readiness: ReadinessCheck[] = [
  { name: "legacy-database", check: () => legacy.ping() },
  { name: "database", check: async () => void (await pool.query("SELECT 1")) },
];
// Only until the revocation list first loads; later NATS outages do not fail it.
readiness.push(revocations.readiness);

// Practice events: change detection over both legacy sources, the one task of this
// process's leader group (one replica at a time), and the outbox relay to the events stream in
// every replica. NATS is not a readiness check: the read API does not need it, and events wait in
// the outbox while it is away.
const nc = await connectNats({
  ...natsConnectSettings(config),
  name: SERVICE_NAME,
  logger,
});
const leader = await createLeaderGroup(config, { pool, logger, name: "practices-change-detector" });
const events = await startEventPipeline({
  settings: config,
  schema: SERVICE_NAME,
  pool,
  nc,
  logger,
  meter: metrics.meter,
  source: new PracticeChangeSource(new MysqlPracticeFeed(legacy)),
  leader,
});
leader.start();

const serving = await serve({
  logger,
  shutdown,
  app: createApp(appDeps),
  port: config.PORT,
  internalPort: config.INTERNAL_PORT,
  limits: httpLimits(config),
  readiness,
  warmUp: {
    run: practiceWarmUp({
      connect: [() => legacy.openConnections()],
      access: warmUp,
      keys,
      concurrency: config.LEGACY_POOL_MAX,
    }),
    timeoutMs: config.WARM_UP_MAX_MS,
    onSettled: warmUp.end,
  },
  internalRoutes: { "/metrics": metrics.handler },
});
// The detector first: it writes the outbox the relay publishes from.
shutdown.add("leader group (change detector)", () => leader.stop());
shutdown.add("outbox relay", () => events.stop());
shutdown.add("nats", () => drainNats(nc));
shutdown.add("legacy database", () => legacy.close());
shutdown.add("legacy database, counts", () => counting.close());
shutdown.add("revocation feed", () => revocations.stop());
shutdown.add("database", () => pool.end());
shutdown.add("metrics", () => metrics.shutdown());
closeInternalLast(shutdown, serving);
shutdown.installSignalHandlers();
