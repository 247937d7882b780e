import { legacyReadWarmUp, runProcess } from "@svc/host";
import { loadConfig, SERVICE_NAME, SERVICE_VERSION } from "./config.ts";
import { createApp } from "./app.ts";
import { practicesAdapters, practicesTasks } from "./compose.ts";
import { PRACTICES_SCOPE } from "./http/operations.ts";
import { MIGRATIONS_FOLDER } from "./store/migrations.ts";
import { practiceWarmUp } from "./warm-up.ts";

// The practices process, declared; @svc/host starts it and stops it in the reverse order.
await runProcess({
  name: SERVICE_NAME,
  version: SERVICE_VERSION,
  config: loadConfig,
  resources: {
    legacy: true,
    pg: { schema: SERVICE_NAME, migrations: MIGRATIONS_FOLDER },
    nats: { readiness: false },
    // Until the warm-up has settled the API also takes its in-process credential (warm-up.ts).
    tokens: { warmUpScopes: [PRACTICES_SCOPE] },
    // The change detector's election: one replica at a time.
    leadership: "practices-change-detector",
  },
  adapters: practicesAdapters,
  app: ({ config, logger, meter, verify }, adapters) =>
    createApp({ config, logger, meter, verify, ...adapters }),
  warmUp: (host) => practiceWarmUp(legacyReadWarmUp(host)),
  tasks: practicesTasks,
});
