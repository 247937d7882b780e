import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import { startTelemetry, telemetryEnabled } from "../src/index.ts";

describe("telemetryEnabled", () => {
  it("is off when no OTEL variable is set", () => {
    expect(telemetryEnabled({ OTEL_SDK_DISABLED: false })).toBe(false);
  });
  it("is on when an OTLP endpoint is configured", () => {
    expect(telemetryEnabled({ OTEL_SDK_DISABLED: false, OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
  });
  it("honours OTEL_TRACES_EXPORTER=none and OTEL_SDK_DISABLED", () => {
    expect(telemetryEnabled({ OTEL_SDK_DISABLED: false, OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" })).toBe(false);
    expect(telemetryEnabled({ OTEL_SDK_DISABLED: true, OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toBe(false);
  });
});

describe("startTelemetry", () => {
  it("starts nothing when off", () => {
    expect(startTelemetry({ serviceName: "x", serviceVersion: "0.1.0", environment: "sandbox", settings: { OTEL_SDK_DISABLED: false } })).toBeUndefined();
  });

  it("records spans with the service's resource attributes when on", async () => {
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor({ exporter });
    const sdk = startTelemetry({
      serviceName: "vacancies",
      serviceVersion: "0.1.0",
      environment: "sandbox",
      settings: { OTEL_SDK_DISABLED: false },
      spanProcessors: [processor],
    });
    try {
      trace.getTracer("test").startActiveSpan("work", (span) => span.end());
      await processor.forceFlush();
      const spans = exporter.getFinishedSpans();
      expect(spans.map((s) => s.name)).toContain("work");
      expect(spans[0]?.resource.attributes).toMatchObject({ "service.name": "vacancies", "service.version": "0.1.0", "deployment.environment.name": "sandbox" });
    } finally {
      await sdk?.shutdown();
    }
  });
});
