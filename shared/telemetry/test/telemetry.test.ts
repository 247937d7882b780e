import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  SamplingDecision,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import {
  createMetrics,
  metricsPushEnabled,
  NoOrphanClientSpans,
  parseSamples,
  sampleValue,
  samplerFromSettings,
  startTelemetry,
  telemetryEnabled,
} from "../src/index.ts";

describe("telemetryEnabled", () => {
  it("is off when no OTEL variable is set", () => {
    expect(telemetryEnabled({ OTEL_SDK_DISABLED: false })).toBe(false);
  });
  it("is on when an OTLP endpoint is configured", () => {
    expect(
      telemetryEnabled({
        OTEL_SDK_DISABLED: false,
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      }),
    ).toBe(true);
  });
  it("honours OTEL_TRACES_EXPORTER=none and OTEL_SDK_DISABLED", () => {
    expect(
      telemetryEnabled({
        OTEL_SDK_DISABLED: false,
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_TRACES_EXPORTER: "none",
      }),
    ).toBe(false);
    expect(
      telemetryEnabled({ OTEL_SDK_DISABLED: true, OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }),
    ).toBe(false);
  });
});

describe("startTelemetry", () => {
  it("starts nothing when off", async () => {
    expect(
      await startTelemetry({
        serviceName: "x",
        serviceVersion: "0.1.0",
        environment: "sandbox",
        settings: { OTEL_SDK_DISABLED: false },
      }),
    ).toBeUndefined();
  });

  it("records spans with the service's resource attributes when on", async () => {
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor({ exporter });
    const sdk = await startTelemetry({
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
      expect(spans[0]?.resource.attributes).toMatchObject({
        "service.name": "vacancies",
        "service.version": "0.1.0",
        "deployment.environment.name": "sandbox",
      });
    } finally {
      await sdk?.shutdown();
    }
  });
});

describe("the sampler", () => {
  const parent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    spanId: "00f067aa0ba902b7",
    traceFlags: TraceFlags.SAMPLED,
  });
  const decide = (
    s: ReturnType<typeof samplerFromSettings>,
    ctx: typeof ROOT_CONTEXT,
    kind: SpanKind,
  ) => s.shouldSample(ctx, "4bf92f3577b34da6a3ce929d0e0e4736", "x", kind, {}, []).decision;

  it("drops a CLIENT span that would start a trace of its own, and nothing else", () => {
    const s = new NoOrphanClientSpans(samplerFromSettings(undefined, undefined));
    expect(decide(s, ROOT_CONTEXT, SpanKind.CLIENT)).toBe(SamplingDecision.NOT_RECORD);
    expect(decide(s, parent, SpanKind.CLIENT)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(s, ROOT_CONTEXT, SpanKind.SERVER)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(s, ROOT_CONTEXT, SpanKind.INTERNAL)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
  });

  it("follows OTEL_TRACES_SAMPLER and its ratio", () => {
    expect(
      decide(samplerFromSettings("always_off", undefined), ROOT_CONTEXT, SpanKind.SERVER),
    ).toBe(SamplingDecision.NOT_RECORD);
    expect(
      decide(samplerFromSettings("parentbased_traceidratio", 0), ROOT_CONTEXT, SpanKind.SERVER),
    ).toBe(SamplingDecision.NOT_RECORD);
    // Parent-based: a sampled caller is followed whatever the ratio.
    expect(
      decide(samplerFromSettings("parentbased_traceidratio", 0), parent, SpanKind.SERVER),
    ).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(samplerFromSettings("traceidratio", 1), ROOT_CONTEXT, SpanKind.SERVER)).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
    );
  });
});

describe("metricsPushEnabled", () => {
  it("pushes metrics by OTLP only when an endpoint is set and OTEL_METRICS_EXPORTER is not none", () => {
    expect(metricsPushEnabled({ OTEL_SDK_DISABLED: false })).toBe(false);
    expect(
      metricsPushEnabled({
        OTEL_SDK_DISABLED: false,
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
      }),
    ).toBe(true);
    expect(
      metricsPushEnabled({
        OTEL_SDK_DISABLED: false,
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_METRICS_EXPORTER: "none",
      }),
    ).toBe(false);
    expect(
      metricsPushEnabled({ OTEL_SDK_DISABLED: true, OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }),
    ).toBe(false);
  });
});

describe("createMetrics and the Prometheus text", () => {
  it("serves what was recorded, with dotted names in Prometheus form, readable by sampleValue", async () => {
    const metrics = createMetrics({
      serviceName: "t",
      serviceVersion: "1.2.3",
      environment: "sandbox",
      otlp: false,
    });
    try {
      const counter = metrics.meter.createCounter("webhook.delivery.attempts", {
        unit: "{attempt}",
      });
      counter.add(2, { outcome: "retrying", attempt: 1 });
      counter.add(1, { outcome: "succeeded", attempt: 2 });
      const text = await metrics.scrape();
      expect(
        sampleValue(text, "webhook_delivery_attempts_total", { outcome: "retrying", attempt: "1" }),
      ).toBe(2);
      expect(sampleValue(text, "webhook_delivery_attempts_total", { outcome: "succeeded" })).toBe(
        1,
      );
      expect(
        sampleValue(text, "webhook_delivery_attempts_total", { outcome: "dead" }),
      ).toBeUndefined();
      expect(() => sampleValue(text, "webhook_delivery_attempts_total")).toThrow(/2 samples/);
      expect(sampleValue(text, "target_info")).toBe(1);
      expect(parseSamples(text).find((s) => s.name === "target_info")?.labels).toMatchObject({
        service_name: "t",
        service_version: "1.2.3",
        deployment_environment_name: "sandbox",
      });
    } finally {
      await metrics.shutdown();
    }
  });
});
