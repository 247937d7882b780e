import { openPgConnections } from "@svc/db";
import { runProcess } from "@svc/host";
import { loadConfig, SERVICE_NAME, SERVICE_VERSION } from "./config.ts";
import { createApp } from "./app.ts";
import { identityAdapters, identityTasks } from "./compose.ts";
import { MIGRATIONS_FOLDER } from "./store/migrations.ts";

// The identity process, declared; @svc/host starts it and stops it in the reverse order.
await runProcess({
  name: SERVICE_NAME,
  version: SERVICE_VERSION,
  config: loadConfig,
  resources: {
    pg: { schema: SERVICE_NAME, migrations: MIGRATIONS_FOLDER },
    // A vacancy request per application and a publish per event: no caller stack captured for
    // each (docs/decisions/application-write-path.md).
    nats: { readiness: true, asyncTraces: false },
    tokens: {},
  },
  adapters: identityAdapters,
  app: ({ config, logger, meter, verify, pool }, adapters) =>
    createApp({ config, logger, meter, verify, pool, ...adapters }),
  // Its API writes, so no reads through it: the pool's connections and auth's keys (best effort:
  // jose fetches them again when a request needs them). Why: docs/decisions/cold-start-warm-up.md.
  warmUp:
    ({ pool, keys, config }) =>
    async () =>
      void (await Promise.all([
        openPgConnections(pool, config.DATABASE_POOL_MAX),
        keys.reload().catch(() => undefined),
      ])),
  tasks: identityTasks,
});
