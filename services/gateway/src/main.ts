import { createLogger } from "@svc/logging";
import { exitOnStartupError, httpLimits, listen, Shutdown } from "@svc/http";
import { loadConfig, SERVICE_NAME, type Config } from "./config.ts";
import { createApp } from "./app.ts";

// Local development only: in Kubernetes the Ingress, rendered from the same route table, does this.
let config: Config;
try {
  config = loadConfig();
} catch (err) {
  exitOnStartupError(SERVICE_NAME, err);
}
const logger = createLogger({ service: SERVICE_NAME, level: config.LOG_LEVEL });
const shutdown = new Shutdown(logger);
const server = await listen(
  createApp({ config, logger }),
  config.PORT,
  "127.0.0.1",
  httpLimits(config),
);
logger.info({ port: server.port }, "gateway listening");
shutdown.add("gateway", () => server.close(5_000));
shutdown.installSignalHandlers();
