import { runProcess } from "@svc/host";
import {
  loadDispatcherConfig,
  SERVICE_NAME,
  SERVICE_VERSION,
  type DispatcherConfig,
} from "./config.ts";
import { dispatcherAdapters, dispatcherTasks } from "./compose.ts";
import { MIGRATIONS_FOLDER } from "./store/migrations.ts";

// The webhook dispatcher, declared over the same code and image as the webhooks API: no public
// API, only the internal port. @svc/host starts it and stops it in the reverse order: the leader
// group hands leadership back, the dispatcher stops taking messages and finishes its attempts,
// then the outbound client, NATS (flushing acks) and the pool close.
await runProcess({
  name: `${SERVICE_NAME}-dispatcher`,
  version: SERVICE_VERSION,
  config: loadDispatcherConfig,
  resources: {
    pg: { schema: SERVICE_NAME, migrations: MIGRATIONS_FOLDER },
    // Fan-out publishes once per delivery: no caller stack captured per publish
    // (docs/decisions/delivery-throughput.md).
    nats: { readiness: true, asyncTraces: false },
    // Retention, auto-disable and the operator: the elected replica only.
    leadership: (config: DispatcherConfig) => config.LEADER_ELECTION_NAME,
  },
  adapters: dispatcherAdapters,
  tasks: dispatcherTasks,
});
