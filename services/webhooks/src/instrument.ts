// The process preload (`node --import`, before its entry point): runtime tuning, then tracing.
import { preloadProcess } from "@svc/host/preload";
import { loadTelemetryConfig, SERVICE_NAME, SERVICE_VERSION } from "./config.ts";

// The dispatcher is the second entry point of this codebase (its source or its bundle); its spans
// name it (OTEL_SERVICE_NAME still wins).
const isDispatcher = /dispatcher-main\.[jt]s$/.test(process.argv[1] ?? "");
await preloadProcess({
  name: isDispatcher ? `${SERVICE_NAME}-dispatcher` : SERVICE_NAME,
  version: SERVICE_VERSION,
  loadTelemetryConfig,
});
