// Loaded with `node --import` before main.ts, so instrumented modules are patched as they load.
import { startTelemetry } from "@svc/telemetry";
import { loadTelemetryConfig, SERVICE_NAME, SERVICE_VERSION } from "./config.ts";

const telemetry = loadTelemetryConfig();
startTelemetry({ serviceName: SERVICE_NAME, serviceVersion: SERVICE_VERSION, environment: telemetry.ENVIRONMENT, settings: telemetry });
