// Loaded with `node --import` before main.ts: main's imports then resolve through the package-scope
// cache (Node 24 ESM loading cost, see @svc/telemetry), and instrumented modules are patched as they load.
import { registerEsmFormatCache, startTelemetry } from "@svc/telemetry";
import { loadTelemetryConfig, SERVICE_NAME, SERVICE_VERSION } from "./config.ts";

registerEsmFormatCache();
const telemetry = loadTelemetryConfig();
await startTelemetry({ serviceName: SERVICE_NAME, serviceVersion: SERVICE_VERSION, environment: telemetry.ENVIRONMENT, settings: telemetry });
