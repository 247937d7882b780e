// Loaded with `node --import` before main.ts: main's imports then resolve through the ESM format
// cache, freed heap goes back to the system when the process is idle (both Node 24 costs, see
// @svc/telemetry), and instrumented modules are patched as they load.
import { registerEsmFormatCache, startIdleHeapRelease, startTelemetry } from "@svc/telemetry";
import { loadTelemetryConfig, SERVICE_NAME, SERVICE_VERSION } from "./config.ts";

registerEsmFormatCache();
startIdleHeapRelease();
const telemetry = loadTelemetryConfig();
await startTelemetry({ serviceName: SERVICE_NAME, serviceVersion: SERVICE_VERSION, environment: telemetry.ENVIRONMENT, settings: telemetry });
