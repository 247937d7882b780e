import { createLogger } from "@svc/logging";
import { closeInternalLast, exitOnStartupError, serve, Shutdown, type ReadinessCheck } from "@svc/http";
import { createPgPool } from "@svc/db";
import { loadDispatcherConfig, SERVICE_NAME, type DispatcherConfig } from "./config.ts";

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
const pool = createPgPool({ url: config.DATABASE_URL, schema: SERVICE_NAME, applicationName: PROCESS_NAME, max: config.DATABASE_POOL_MAX });
const readiness: ReadinessCheck[] = [{ name: "database", check: async () => void (await pool.query("SELECT 1")) }];

const serving = await serve({ logger, shutdown, app: null, port: 0, internalPort: config.INTERNAL_PORT, readiness });
shutdown.add("database", () => pool.end());
closeInternalLast(shutdown, serving);
shutdown.installSignalHandlers();
