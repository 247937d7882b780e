import { register } from "node:module";
import type { NodeSDK } from "@opentelemetry/sdk-node";
import type { SpanProcessor } from "@opentelemetry/sdk-trace";
import { env, z } from "@svc/config";
import {
  edgeSampler,
  INCOMING_CONTEXT_MODES,
  SAMPLER_NAMES,
  samplerFromSettings,
  ServiceSampler,
  type IncomingContextMode,
  type SamplerName,
} from "./sampler.ts";
import { httpUrlAttributes, undiciUrlAttributes } from "./outgoing-url.ts";
import { processResource } from "./resource.ts";

/**
 * The standard OTEL_* variables we read ourselves: whether to start the SDK at all, the service
 * name override, the sampler, and whether metrics are pushed, and what the edge does with a
 * caller's trace context. The SDK reads the rest (exporter protocol, headers, batch settings);
 * resource attributes are read by processResource.
 */
export const telemetryEnvShape = {
  OTEL_SDK_DISABLED: env.bool(false),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().optional(),
  OTEL_TRACES_EXPORTER: z.string().optional(),
  OTEL_METRICS_EXPORTER: z.string().optional(),
  OTEL_METRIC_EXPORT_INTERVAL: z.coerce.number().int().positive().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  OTEL_TRACES_SAMPLER: z
    .enum(SAMPLER_NAMES, { message: `must be one of ${SAMPLER_NAMES.join(", ")}` })
    .optional(),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
  /** The edge's treatment of a caller's `traceparent` (sampler.ts, INCOMING_CONTEXT_MODES). */
  TRACE_INCOMING_CONTEXT: z
    .enum(INCOMING_CONTEXT_MODES, {
      message: `must be one of ${INCOMING_CONTEXT_MODES.join(", ")}`,
    })
    .default("correlate"),
};

export interface TelemetrySettings {
  OTEL_SDK_DISABLED: boolean;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_TRACES_EXPORTER?: string | undefined;
  OTEL_METRICS_EXPORTER?: string | undefined;
  OTEL_METRIC_EXPORT_INTERVAL?: number | undefined;
  OTEL_SERVICE_NAME?: string | undefined;
  OTEL_TRACES_SAMPLER?: SamplerName | undefined;
  OTEL_TRACES_SAMPLER_ARG?: number | undefined;
  /** Default `correlate`. */
  TRACE_INCOMING_CONTEXT?: IncomingContextMode | undefined;
}

/**
 * Off unless an exporter is configured: nothing is exported (or even started) when they are unset.
 */
export function telemetryEnabled(settings: TelemetrySettings): boolean {
  if (settings.OTEL_SDK_DISABLED) return false;
  if (settings.OTEL_TRACES_EXPORTER !== undefined) return settings.OTEL_TRACES_EXPORTER !== "none";
  return Boolean(
    settings.OTEL_EXPORTER_OTLP_ENDPOINT || settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
  );
}

/**
 * Metrics are pushed by OTLP too when an endpoint is configured, unless OTEL_METRICS_EXPORTER=none.
 */
export function metricsPushEnabled(settings: TelemetrySettings): boolean {
  if (settings.OTEL_SDK_DISABLED || settings.OTEL_METRICS_EXPORTER === "none") return false;
  return Boolean(settings.OTEL_EXPORTER_OTLP_ENDPOINT);
}

export interface TelemetryOptions {
  serviceName: string;
  serviceVersion: string;
  environment: string;
  settings: TelemetrySettings;
  /** Tests pass an in-memory processor; production uses the exporter the OTEL_* variables name. */
  spanProcessors?: SpanProcessor[];
}

/** The modules the instrumentations below patch (imported by our code or the libraries we use). */
const INSTRUMENTED_MODULES = ["http", "https", "pg", "pg-pool", "undici"];

/**
 * Starts the OpenTelemetry NodeSDK. Must run before the application imports pg or undici (each
 * service's instrument.ts is loaded with `node --import`). Returns undefined when off.
 * Only traces: metrics come from createMetrics (one MeterProvider per process, scraped and pushed).
 * The SDK and its instrumentations are imported only when tracing is on: a process that exports
 * nothing does not carry them (docs/decisions/tracing-cost.md).
 */
export async function startTelemetry(options: TelemetryOptions): Promise<NodeSDK | undefined> {
  const { settings } = options;
  if (!telemetryEnabled(settings) && !options.spanProcessors) return undefined;
  // ESM imports of the instrumented modules are patched through import-in-the-middle's loader
  // hook. Only those: wrapping every module the process loads slows its start-up badly.
  register("@opentelemetry/instrumentation/hook.mjs", import.meta.url, {
    data: { include: [...INSTRUMENTED_MODULES] },
  });
  const [{ NodeSDK }, { HttpInstrumentation }, { PgInstrumentation }, { UndiciInstrumentation }] =
    await Promise.all([
      import("@opentelemetry/sdk-node"),
      import("@opentelemetry/instrumentation-http"),
      import("@opentelemetry/instrumentation-pg"),
      import("@opentelemetry/instrumentation-undici"),
    ]);
  const { OTEL_TRACES_SAMPLER: sampler, OTEL_TRACES_SAMPLER_ARG: ratio } = settings;
  const sdk = new NodeSDK({
    // The same resource as the metrics' (createMetrics); OTEL_RESOURCE_ATTRIBUTES and
    // OTEL_SERVICE_NAME are read there, no other detector runs.
    resource: processResource({
      ...options,
      serviceName: settings.OTEL_SERVICE_NAME ?? options.serviceName,
    }),
    autoDetectResources: false,
    sampler: new ServiceSampler(
      samplerFromSettings(sampler, ratio),
      (settings.TRACE_INCOMING_CONTEXT ?? "correlate") === "trust"
        ? undefined
        : edgeSampler(sampler, ratio),
    ),
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
    // Our metrics have their own provider (createMetrics); the SDK starts no metric or log
    // pipeline.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      // Server spans come from @svc/http's own middleware (one span per request, named by route);
      // this one only traces outgoing node:http requests (JWKS) inside an operation.
      // Outgoing URLs are recorded as scheme, host and port only (outgoing-url.ts).
      new HttpInstrumentation({
        disableIncomingRequestInstrumentation: true,
        requireParentforOutgoingSpans: true,
        startOutgoingSpanHook: httpUrlAttributes,
      }),
      new PgInstrumentation({ requireParentSpan: true }),
      // MySQL (the legacy source) spans come from @svc/db's createLegacyDb, where every legacy read
      // passes.
      new UndiciInstrumentation({
        requireParentforSpans: true,
        startSpanHook: undiciUrlAttributes,
      }),
    ],
  });
  sdk.start();
  return sdk;
}

export { createMetrics, type Metrics, type MetricsOptions } from "./metrics.ts";
export {
  edgeSampler,
  INCOMING_CONTEXT_MODES,
  INCOMING_REQUEST_CONTEXT,
  markIncoming,
  samplerFromSettings,
  SAMPLER_NAMES,
  ServiceSampler,
  type IncomingContextMode,
  type SamplerName,
} from "./sampler.ts";
export { outgoingUrlAttributes, REDACTED } from "./outgoing-url.ts";
export { processResource, type ProcessIdentity } from "./resource.ts";
export { parseSamples, sampleValue, type Sample } from "./prometheus-text.ts";
