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
import { createPgPool, runMigrations } from "@svc/db";
import { connectNats, drainNats, jetstream, names, natsConnectSettings } from "@svc/messaging";
import {
  loadDispatcherConfig,
  SERVICE_NAME,
  SERVICE_VERSION,
  type DispatcherConfig,
} from "./config.ts";
import { MIGRATIONS_FOLDER } from "./store/migrations.ts";
import { systemClock } from "./domain/model.ts";
import { systemResolver } from "./outbound/resolver.ts";
import { createDeliveryClient, startDispatcher } from "./workers/dispatcher/start-dispatcher.ts";
import { createNatsDeliveryQueue } from "./messaging/nats-delivery-queue.ts";
import { createDispatcherLeaderGroup, LEADERSHIP_NAME } from "./workers/leader-group.ts";

// Composition root of the webhook dispatcher (same codebase and image as the webhooks API).
const PROCESS_NAME = `${SERVICE_NAME}-dispatcher`;
let config: DispatcherConfig;
try {
  config = loadDispatcherConfig();
} catch (err) {
  exitOnStartupError(PROCESS_NAME, err);
}
const logger = createLogger({ service: PROCESS_NAME, level: config.LOG_LEVEL });
const shutdown = new Shutdown(logger);
const metrics = createMetrics({
  serviceName: PROCESS_NAME,
  serviceVersion: SERVICE_VERSION,
  environment: config.ENVIRONMENT,
  otlp: metricsPushEnabled(config),
});
const pool = createPgPool({
  url: config.DATABASE_URL,
  schema: SERVICE_NAME,
  applicationName: PROCESS_NAME,
  max: config.DATABASE_POOL_MAX,
});
if (config.MIGRATE_ON_START)
  await runMigrations(pool, { schema: SERVICE_NAME, migrationsFolder: MIGRATIONS_FOLDER });
if (config.WEBHOOK_SECRET_KEY.isDevelopmentKey)
  logger.warn(
    "WEBHOOK_SECRET_KEY is not set: webhook secrets are opened with the public development key",
  );
const nc = await connectNats({
  ...natsConnectSettings(config),
  name: PROCESS_NAME,
  logger,
  // Fan-out publishes once per delivery: no caller stack captured per publish
  // (docs/decisions/delivery-throughput.md).
  asyncTraces: false,
});
const client = createDeliveryClient(config, systemResolver());
const dispatcher = await startDispatcher({
  config,
  nc,
  pool,
  client,
  clock: systemClock,
  logger,
  meter: metrics.meter,
});
// Leader-only work, on the elected replica only, under one election ("webhooks-dispatcher"): the
// retention job, the auto-disable check and the WebhookSubscription controller (the chart enables
// it). The operator is imported only then: the Kubernetes client is ~20 MB of heap a dispatcher
// without it never uses.
const leader = await createDispatcherLeaderGroup({
  config,
  pool,
  clock: systemClock,
  logger,
  meter: metrics.meter,
});
if (config.OPERATOR_ENABLED)
  leader.add(
    (await import("./workers/operator/start-operator.ts")).operatorTask({
      config,
      pool,
      queue: createNatsDeliveryQueue(jetstream(nc), names(config.NATS_NAMESPACE)),
      resolver: systemResolver(),
      clock: systemClock,
      logger,
      meter: metrics.meter,
      leadership: LEADERSHIP_NAME,
    }),
  );
leader.start();
const readiness: ReadinessCheck[] = [
  { name: "database", check: async () => void (await pool.query("SELECT 1")) },
  { name: "nats", check: () => nc.flush() },
];

const serving = await serve({
  logger,
  shutdown,
  app: null,
  port: 0,
  internalPort: config.INTERNAL_PORT,
  limits: httpLimits(config),
  readiness,
  internalRoutes: { "/metrics": metrics.handler },
});
// Order: stop taking messages and finish running attempts, then flush acks, then close clients.
// The leader group first: it releases leadership (Lease or advisory lock) while the database is still there.
shutdown.add("leader group (retention, auto-disable, operator)", () => leader.stop());
shutdown.add("dispatcher", () => dispatcher.stop());
shutdown.add("nats", () => drainNats(nc));
shutdown.add("outbound http", () => client.close());
shutdown.add("database", () => pool.end());
shutdown.add("metrics", () => metrics.shutdown());
closeInternalLast(shutdown, serving);
shutdown.installSignalHandlers();
