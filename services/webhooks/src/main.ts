import { runProcess } from "@svc/host";
import { loadConfig, SERVICE_NAME, SERVICE_VERSION } from "./config.ts";
import { createApp } from "./app.ts";
import { webhooksAdapters } from "./compose.ts";
import { MIGRATIONS_FOLDER } from "./store/migrations.ts";

// The webhook subscriptions API, declared; @svc/host starts it and stops it in the reverse order.
await runProcess({
  name: SERVICE_NAME,
  version: SERVICE_VERSION,
  config: loadConfig,
  resources: {
    pg: { schema: SERVICE_NAME, migrations: MIGRATIONS_FOLDER },
    // Ping and manual redelivery publish to the deliveries work stream the dispatcher consumes.
    nats: { readiness: true },
    tokens: {},
  },
  adapters: webhooksAdapters,
  app: ({ config, logger, meter, verify, pool, revocations }, adapters) =>
    createApp({ config, logger, meter, verify, pool, revocations, ...adapters }),
});
