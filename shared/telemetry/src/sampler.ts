import { SpanKind, trace, type Attributes, type Context, type Link } from "@opentelemetry/api";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SamplingResult,
} from "@opentelemetry/sdk-trace";

/**
 * The samplers OTEL_TRACES_SAMPLER may name (the SDK's own list, without the Jaeger remote one).
 */
export const SAMPLER_NAMES = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;
export type SamplerName = (typeof SAMPLER_NAMES)[number];

/** The sampler the standard variables describe; default parentbased_always_on, as the SDK's. */
export function samplerFromSettings(
  name: SamplerName | undefined,
  ratio: number | undefined,
): Sampler {
  const r = ratio ?? 1;
  switch (name ?? "parentbased_always_on") {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(r);
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(r) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/**
 * Drops CLIENT spans that would start a trace of their own: a database query or an outgoing
 * request outside any traced operation (a readiness probe's ping, a poll that found no work).
 * Our instrumentations are told to require a parent already; this keeps any other library's
 * (or a future instrumentation's) orphans out too. Everything else goes to `inner`.
 */
export class NoOrphanClientSpans implements Sampler {
  readonly #inner: Sampler;
  constructor(inner: Sampler) {
    this.#inner = inner;
  }
  shouldSample(
    ctx: Context,
    traceId: string,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    if (kind === SpanKind.CLIENT && trace.getSpanContext(ctx) === undefined)
      return { decision: SamplingDecision.NOT_RECORD };
    return this.#inner.shouldSample(ctx, traceId, name, kind, attributes, links);
  }
  toString(): string {
    return `NoOrphanClientSpans{${this.#inner.toString()}}`;
  }
}
