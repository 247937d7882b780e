// Loaded with `node --import` before main.ts (the process preload): the runtime tuning, then
// tracing, so instrumented modules are patched as main imports them.
import { tuneProcess } from "@svc/runtime";
import { startTelemetry } from "@svc/telemetry";
import { loadTelemetryConfig, SERVICE_NAME, SERVICE_VERSION } from "./config.ts";

const telemetry = loadTelemetryConfig();
// The dispatcher is the second entry point of this codebase (its source or its bundle); its spans
// name it (OTEL_SERVICE_NAME still wins).
const isDispatcher = /dispatcher-main\.[jt]s$/.test(process.argv[1] ?? "");
tuneProcess();
await startTelemetry({
  serviceName: isDispatcher ? `${SERVICE_NAME}-dispatcher` : SERVICE_NAME,
  serviceVersion: SERVICE_VERSION,
  environment: telemetry.ENVIRONMENT,
  settings: telemetry,
});
