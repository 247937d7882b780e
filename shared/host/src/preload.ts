// The process preload (`node --import` of a service's instrument.ts, before its entry point): the
// runtime tuning, then tracing, so instrumented modules are patched as the entry point imports
// them. Imports nothing else: pg and undici must load after tracing has started.
import { tuneProcess } from "@svc/runtime";
import { startTelemetry, type TelemetrySettings } from "@svc/telemetry";

export interface PreloadOptions {
  /** The process's name (its spans' service name unless OTEL_SERVICE_NAME is set). */
  name: string;
  version: string;
  /** Only what tracing reads, so a bad unrelated key is reported by the entry point. */
  loadTelemetryConfig: () => TelemetrySettings & { ENVIRONMENT: string };
}

export async function preloadProcess(options: PreloadOptions): Promise<void> {
  const telemetry = options.loadTelemetryConfig();
  tuneProcess();
  await startTelemetry({
    serviceName: options.name,
    serviceVersion: options.version,
    environment: telemetry.ENVIRONMENT,
    settings: telemetry,
  });
}
