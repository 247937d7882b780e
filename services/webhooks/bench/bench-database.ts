import { readFileSync } from "node:fs";
import { createPgPool, runMigrations } from "@svc/db";
import {
  connectNats,
  deliveriesStreamConfig,
  drainNats,
  ensureStream,
  eventsStreamConfig,
  jetstream,
  jetstreamManager,
  names,
} from "@svc/messaging";
import { createTempPgDatabase, silentLogger, testEnv } from "@svc/testing";
import { createSubscriptionService } from "../src/compose.ts";
import { loadConfig } from "../src/config.ts";
import { systemClock } from "../src/domain/model.ts";
import { MIGRATIONS_FOLDER } from "../src/store/migrations.ts";
import { systemResolver } from "../src/outbound/resolver.ts";
import { baseEnv, testNamespace } from "../test/support/harness.ts";

/** A private PostgreSQL database with the webhooks schema migrated, and a pool of `max` on it. */
export async function webhooksBenchDatabase(prefix: string, applicationName: string, max: number) {
  const database = await createTempPgDatabase(prefix);
  const pool = createPgPool({ url: database.url, schema: "webhooks", applicationName, max });
  await runMigrations(pool, { schema: "webhooks", migrationsFolder: MIGRATIONS_FOLDER });
  return { database, pool };
}

export type WebhooksBenchWorld = Awaited<ReturnType<typeof webhooksBenchWorld>>;

/**
 * What a dispatcher bench runs against: a private database (pool of `poolMax`), a fresh NATS
 * namespace with its events stream (and deliveries stream, `withDeliveries`), the environment a
 * dispatcher process is given, and the subscription service to subscribe with.
 */
export async function webhooksBenchWorld(options: {
  name: string;
  poolMax: number;
  caFile: string;
  env?: Record<string, string>;
  withDeliveries?: boolean;
}) {
  const { database, pool } = await webhooksBenchDatabase(
    options.name.replaceAll("-", "_"),
    options.name,
    options.poolMax,
  );
  const namespace = testNamespace();
  const n = names(namespace);
  const nc = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: options.name,
    logger: silentLogger(),
  });
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  await ensureStream(jsm, eventsStreamConfig(n));
  if (options.withDeliveries) await ensureStream(jsm, deliveriesStreamConfig(n));
  const env = {
    ...baseEnv({
      databaseUrl: database.url,
      namespace,
      natsUrl: testEnv.TEST_NATS_URL,
      caFile: options.caFile,
    }),
    LOG_LEVEL: "warn",
    INTERNAL_PORT: "0",
    ...options.env,
  };
  const service = createSubscriptionService({
    config: loadConfig(env),
    logger: silentLogger(),
    pool,
    resolver: systemResolver(),
    queue: { enqueue: async () => {} },
    clock: systemClock,
  });
  return {
    database,
    pool,
    n,
    js,
    jsm,
    env,
    service,
    async close() {
      for (const stream of [n.eventsStream, n.deliveriesStream])
        await jsm.streams.delete(stream).catch(() => false);
      await drainNats(nc, { timeoutMs: 2_000 });
      await pool.end();
      await database.drop();
    },
  };
}

/** The 1, 5 and 15 minute load averages, as /proc/loadavg prints them. */
export function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}
