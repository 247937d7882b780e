import { createLogger } from "@svc/logging";
import { closeInternalLast, exitOnStartupError, serve, Shutdown, type ReadinessCheck } from "@svc/http";
import { createTokenVerifier, remoteKeys } from "@svc/auth";
import { createPgPool, runMigrations } from "@svc/db";
import { loadConfig, SERVICE_NAME, type Config } from "./config.ts";
import { createApp } from "./app.ts";
import { MIGRATIONS_FOLDER } from "./db/migrations.ts";

// Composition root: config → logger → dependencies → app → listen → graceful shutdown.
let config: Config;
try {
  config = loadConfig();
} catch (err) {
  exitOnStartupError(SERVICE_NAME, err);
}
const logger = createLogger({ service: SERVICE_NAME, level: config.LOG_LEVEL });
const shutdown = new Shutdown(logger);
const verify = createTokenVerifier({ keys: remoteKeys(config.AUTH_JWKS_URL), issuer: config.TOKEN_ISSUER, audience: config.TOKEN_AUDIENCE });
const pool = createPgPool({ url: config.DATABASE_URL, schema: SERVICE_NAME, applicationName: SERVICE_NAME, max: config.DATABASE_POOL_MAX });
if (config.MIGRATE_ON_START) await runMigrations(pool, { schema: SERVICE_NAME, migrationsFolder: MIGRATIONS_FOLDER });
const readiness: ReadinessCheck[] = [{ name: "database", check: async () => void (await pool.query("SELECT 1")) }];

const serving = await serve({ logger, shutdown, app: createApp({ config, logger, verify, pool }), port: config.PORT, internalPort: config.INTERNAL_PORT, readiness });
shutdown.add("database", () => pool.end());
closeInternalLast(shutdown, serving);
shutdown.installSignalHandlers();
