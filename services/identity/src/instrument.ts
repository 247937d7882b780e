// The process preload (`node --import`, before main.ts): runtime tuning, then tracing.
import { preloadProcess } from "@svc/host/preload";
import { loadTelemetryConfig, SERVICE_NAME, SERVICE_VERSION } from "./config.ts";

await preloadProcess({ name: SERVICE_NAME, version: SERVICE_VERSION, loadTelemetryConfig });
