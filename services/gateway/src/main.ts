import { runProcess } from "@svc/host";
import { loadConfig, SERVICE_NAME } from "./config.ts";
import { createApp } from "./app.ts";
import { installationVersion } from "@svc/config";

// Local development only: in Kubernetes the Ingress, rendered from the same route table, does
// this. No internal port: nothing probes or scrapes it.
await runProcess({
  name: SERVICE_NAME,
  version: installationVersion,
  config: loadConfig,
  app: ({ config, logger }) => createApp({ config, logger }),
  http: { bind: "127.0.0.1", drainMs: 5_000 },
});
