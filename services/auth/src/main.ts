import { runProcess } from "@svc/host";
import { SERVICE_NAME, SERVICE_VERSION } from "./config.ts";
import { createApp } from "./app.ts";
import { authAdapters, authTasks, loadConfigAndKeys } from "./compose.ts";
import { MIGRATIONS_FOLDER } from "./store/migrations.ts";

// The auth process, declared; @svc/host starts it and stops it in the reverse order.
await runProcess({
  name: SERVICE_NAME,
  version: SERVICE_VERSION,
  config: loadConfigAndKeys,
  resources: {
    pg: { schema: SERVICE_NAME, migrations: MIGRATIONS_FOLDER },
    // auth writes the revocations bucket; its remembered proofs follow it.
    revocations: true,
  },
  adapters: authAdapters,
  app: ({ config, logger, meter, pool, revocations }, adapters) =>
    createApp({ config, logger, meter, pool, revocations, ...adapters }),
  tasks: authTasks,
});
