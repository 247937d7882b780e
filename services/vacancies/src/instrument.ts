// Loaded with `node --import` before main.ts (the process preload, @svc/telemetry preloadProcess).
import { preloadProcess } from "@svc/telemetry";
import { loadTelemetryConfig, SERVICE_NAME, SERVICE_VERSION } from "./config.ts";

const telemetry = loadTelemetryConfig();
await preloadProcess({
  serviceName: SERVICE_NAME,
  serviceVersion: SERVICE_VERSION,
  environment: telemetry.ENVIRONMENT,
  settings: telemetry,
});
