import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  SamplingDecision,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createMetrics,
  edgeSampler,
  markIncoming,
  metricsPushEnabled,
  outgoingUrlAttributes,
  parseSamples,
  SAMPLER_NAMES,
  sampleValue,
  samplerFromSettings,
  ServiceSampler,
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
      // The API's global outlives the SDK: unregister it so the next test's SDK can register.
      trace.disable();
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
    const s = new ServiceSampler(samplerFromSettings(undefined, undefined));
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

  it("decides a new trace by each name's root, and a sampled parent's child by its parent-based names only; the edge by the root alone", () => {
    const kept = (sampler: ReturnType<typeof samplerFromSettings>, ctx: typeof ROOT_CONTEXT) =>
      decide(sampler, ctx, SpanKind.SERVER) === SamplingDecision.RECORD_AND_SAMPLED;
    const table = SAMPLER_NAMES.map((name) => ({
      name,
      root: [0, 1].map((r) => kept(samplerFromSettings(name, r), ROOT_CONTEXT)),
      child: [0, 1].map((r) => kept(samplerFromSettings(name, r), parent)),
      edge: [0, 1].map((r) => kept(edgeSampler(name, r), ROOT_CONTEXT)),
    }));
    expect(table).toEqual([
      { name: "always_on", root: [true, true], child: [true, true], edge: [true, true] },
      { name: "always_off", root: [false, false], child: [false, false], edge: [false, false] },
      { name: "traceidratio", root: [false, true], child: [false, true], edge: [false, true] },
      {
        name: "parentbased_always_on",
        root: [true, true],
        child: [true, true],
        edge: [true, true],
      },
      {
        name: "parentbased_always_off",
        root: [false, false],
        child: [true, true],
        edge: [false, false],
      },
      {
        name: "parentbased_traceidratio",
        root: [false, true],
        child: [true, true],
        edge: [false, true],
      },
    ]);
  });
});

describe("the edge's sampler (TRACE_INCOMING_CONTEXT)", () => {
  const LOW_TRACE = "00000000000000000000000000000001";
  const remote = (sampled: boolean, traceId = LOW_TRACE) =>
    trace.setSpanContext(ROOT_CONTEXT, {
      traceId,
      spanId: "00f067aa0ba902b7",
      traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
      isRemote: true,
    });
  const decide = (s: ServiceSampler, ctx: typeof ROOT_CONTEXT, traceId = LOW_TRACE) =>
    s.shouldSample(ctx, traceId, "GET /v1/x", SpanKind.SERVER, {}, []).decision;
  const correlate = (ratio: number) =>
    new ServiceSampler(
      samplerFromSettings("parentbased_traceidratio", ratio),
      edgeSampler("parentbased_traceidratio", ratio),
    );
  const trust = (ratio: number) =>
    new ServiceSampler(samplerFromSettings("parentbased_traceidratio", ratio));

  it("correlate: a caller's sampled flag decides nothing, either way", () => {
    expect(decide(correlate(0), markIncoming(remote(true)))).toBe(SamplingDecision.NOT_RECORD);
    expect(decide(correlate(1), markIncoming(remote(false)))).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
    );
  });

  it("correlate: a caller's chosen trace id does not buy sampling (the draw is our own)", () => {
    // A trace-id-ratio decision keeps this trace id at any ratio above 0; ours keeps about half.
    const kept = Array.from({ length: 400 }, () =>
      decide(correlate(0.5), markIncoming(remote(true))),
    ).filter((d) => d === SamplingDecision.RECORD_AND_SAMPLED).length;
    expect(kept).toBeGreaterThan(100);
    expect(kept).toBeLessThan(300);
  });

  it("correlate: our own hops (a parent from NATS headers or storage, unmarked) are followed", () => {
    expect(decide(correlate(0), remote(true))).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(correlate(1), remote(false))).toBe(SamplingDecision.NOT_RECORD);
  });

  it("trust: the caller's sampled flag decides", () => {
    expect(decide(trust(0), markIncoming(remote(true)))).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(trust(1), markIncoming(remote(false)))).toBe(SamplingDecision.NOT_RECORD);
  });

  it("keeps the caller's trace id and parent on the span in correlate mode", async () => {
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor({ exporter });
    const sdk = await startTelemetry({
      serviceName: "edge",
      serviceVersion: "0.1.0",
      environment: "sandbox",
      settings: { OTEL_SDK_DISABLED: false, OTEL_TRACES_SAMPLER: "parentbased_always_on" },
      spanProcessors: [processor],
    });
    try {
      const parent = markIncoming(remote(false, "4bf92f3577b34da6a3ce929d0e0e4736"));
      trace.getTracer("test").startSpan("GET /x", { kind: SpanKind.SERVER }, parent).end();
      await processor.forceFlush();
      const [span] = exporter.getFinishedSpans();
      expect(span?.spanContext().traceId).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
      expect(span?.parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
    } finally {
      await sdk?.shutdown();
      trace.disable();
    }
  });
});

describe("outgoing URLs on spans", () => {
  it("keep scheme, host and port only", () => {
    expect(
      outgoingUrlAttributes(new URL("https://user:pw@hooks.example.com/t/s3cret?token=abc#x")),
    ).toEqual({
      "url.full": "https://hooks.example.com:443/REDACTED",
      "url.path": "/REDACTED",
      "url.query": "REDACTED",
    });
    expect(outgoingUrlAttributes(new URL("http://[::1]:8443/"))).toEqual({
      "url.full": "http://[::1]:8443/REDACTED",
      "url.path": "/REDACTED",
    });
  });
});

describe("the resource of traces and metrics", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("names the instance, the same for both, and honours OTEL_RESOURCE_ATTRIBUTES", async () => {
    vi.stubEnv(
      "OTEL_RESOURCE_ATTRIBUTES",
      "k8s.cluster.name=blue,deployment.environment.name=staging",
    );
    const identity = { serviceName: "vacancies", serviceVersion: "0.1.0", environment: "sandbox" };
    const metrics = createMetrics({ ...identity, otlp: false });
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor({ exporter });
    const sdk = await startTelemetry({
      ...identity,
      settings: { OTEL_SDK_DISABLED: false },
      spanProcessors: [processor],
    });
    try {
      const target = parseSamples(await metrics.scrape()).find((s) => s.name === "target_info");
      expect(target?.labels).toMatchObject({
        service_name: "vacancies",
        k8s_cluster_name: "blue",
        deployment_environment_name: "staging",
      });
      const instance = target?.labels["service_instance_id"];
      expect(instance).toMatch(/^[0-9a-f-]{36}$/);
      trace.getTracer("test").startActiveSpan("work", (span) => span.end());
      await processor.forceFlush();
      expect(exporter.getFinishedSpans()[0]?.resource.attributes).toMatchObject({
        "service.instance.id": instance,
        "k8s.cluster.name": "blue",
      });
    } finally {
      await sdk?.shutdown();
      trace.disable();
      await metrics.shutdown();
    }
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
