// Loaded with `node --import` before main.ts: main's imports then resolve through the ESM format
// cache, freed heap goes back to the system when the process is idle (both Node 24 costs, see
// @svc/telemetry), and instrumented modules are patched as they load.
import { registerEsmFormatCache, startIdleHeapRelease, startTelemetry } from "@svc/telemetry";
import { loadTelemetryConfig, SERVICE_NAME, SERVICE_VERSION } from "./config.ts";

registerEsmFormatCache();
startIdleHeapRelease();
const telemetry = loadTelemetryConfig();
// The dispatcher is the second entry point of this codebase; its spans name it (OTEL_SERVICE_NAME still wins).
const isDispatcher = /dispatcher-main\.ts$/.test(process.argv[1] ?? "");
await startTelemetry({ serviceName: isDispatcher ? `${SERVICE_NAME}-dispatcher` : SERVICE_NAME, serviceVersion: SERVICE_VERSION, environment: telemetry.ENVIRONMENT, settings: telemetry });
