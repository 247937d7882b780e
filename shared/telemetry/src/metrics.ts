import type { RequestListener } from "node:http";
import type { Meter } from "@opentelemetry/api";
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type IMetricReader,
} from "@opentelemetry/sdk-metrics";
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { processResource } from "./resource.ts";

export interface MetricsOptions {
  serviceName: string;
  serviceVersion: string;
  environment: string;
  /** Also push by OTLP (when the OTEL_* variables configure an exporter). */
  otlp: boolean;
  /** OTEL_METRIC_EXPORT_INTERVAL: milliseconds between two pushes; default 15 s. */
  exportIntervalMs?: number | undefined;
}

export interface Metrics {
  meter: Meter;
  /** Prometheus text exposition, served on the internal port at /metrics. */
  handler: RequestListener;
  /** The same text the handler serves, without HTTP (tests, tools). */
  scrape(): Promise<string>;
  shutdown(): Promise<void>;
}

/**
 * One MeterProvider per process, passed to whatever records metrics (never a global): always
 * scrapeable on the internal port, and pushed by OTLP when configured.
 */
export function createMetrics(options: MetricsOptions): Metrics {
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const readers: IMetricReader[] = [prometheus];
  if (options.otlp)
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter(),
        exportIntervalMillis: options.exportIntervalMs ?? 15_000,
      }),
    );
  const provider = new MeterProvider({
    // The traces' resource: the instance id, then OTEL_RESOURCE_ATTRIBUTES (resource.ts).
    resource: processResource(options),
    readers,
  });
  return {
    meter: provider.getMeter(options.serviceName, options.serviceVersion),
    handler: (req, res) => prometheus.getMetricsRequestHandler(req, res),
    scrape: async () =>
      new PrometheusSerializer().serialize((await prometheus.collect()).resourceMetrics),
    shutdown: () => provider.shutdown(),
  };
}
