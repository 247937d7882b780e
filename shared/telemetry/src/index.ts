import { register } from "node:module";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { SpanProcessor } from "@opentelemetry/sdk-trace";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { ExpressInstrumentation } from "@opentelemetry/instrumentation-express";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { MySQL2Instrumentation } from "@opentelemetry/instrumentation-mysql2";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { env, z } from "@svc/config";

/**
 * The standard OTEL_* variables that switch tracing on. The SDK reads the rest of them itself
 * (exporter protocol, headers, sampler); we only decide whether to start it at all.
 */
export const telemetryEnvShape = {
  OTEL_SDK_DISABLED: env.bool(false),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().optional(),
  OTEL_TRACES_EXPORTER: z.string().optional(),
};

export interface TelemetrySettings {
  OTEL_SDK_DISABLED: boolean;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_TRACES_EXPORTER?: string | undefined;
}

/** Off unless an exporter is configured: nothing is exported (or even started) when they are unset. */
export function telemetryEnabled(settings: TelemetrySettings): boolean {
  if (settings.OTEL_SDK_DISABLED) return false;
  if (settings.OTEL_TRACES_EXPORTER !== undefined) return settings.OTEL_TRACES_EXPORTER !== "none";
  return Boolean(settings.OTEL_EXPORTER_OTLP_ENDPOINT || settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export interface TelemetryOptions {
  serviceName: string;
  serviceVersion: string;
  environment: string;
  settings: TelemetrySettings;
  /** Tests pass an in-memory processor; production uses the exporter the OTEL_* variables name. */
  spanProcessors?: SpanProcessor[];
}

/**
 * Starts the OpenTelemetry NodeSDK. Must run before the application imports express, pg or
 * mysql2 (each service's instrument.ts is loaded with `node --import`). Returns undefined when off.
 */
export function startTelemetry(options: TelemetryOptions): NodeSDK | undefined {
  if (!telemetryEnabled(options.settings) && !options.spanProcessors) return undefined;
  // ESM modules are patched through import-in-the-middle's loader hook.
  register("@opentelemetry/instrumentation/hook.mjs", import.meta.url);
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    resource: resourceFromAttributes({
      "service.name": options.serviceName,
      "service.version": options.serviceVersion,
      "deployment.environment.name": options.environment,
    }),
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => /^\/(livez|readyz|metrics)/.test(req.url ?? "") }),
      new ExpressInstrumentation(),
      new PgInstrumentation(),
      new MySQL2Instrumentation(),
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
  return sdk;
}

export { createMetrics, type Metrics, type MetricsOptions } from "./metrics.ts";
