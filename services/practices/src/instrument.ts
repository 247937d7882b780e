// Loaded with `node --import` before main.ts (the process preload): the runtime tuning, then
// tracing, so instrumented modules are patched as main imports them.
import { tuneProcess } from "@svc/runtime";
import { startTelemetry } from "@svc/telemetry";
import { loadTelemetryConfig, SERVICE_NAME, SERVICE_VERSION } from "./config.ts";

const telemetry = loadTelemetryConfig();
tuneProcess();
await startTelemetry({
  serviceName: SERVICE_NAME,
  serviceVersion: SERVICE_VERSION,
  environment: telemetry.ENVIRONMENT,
  settings: telemetry,
});
