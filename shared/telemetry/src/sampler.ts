import {
  createContextKey,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  type Attributes,
  type Context,
  type Link,
} from "@opentelemetry/api";
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

/**
 * What the edge (every API's SERVER span: the Ingress and the local gateway pass `traceparent`
 * through) does with a caller's trace context (TRACE_INCOMING_CONTEXT):
 * - `correlate` (default): the span keeps the caller's trace id and parent, but our own sampler
 *   decides as for a new trace, by a draw of its own, neither the caller's sampled flag nor its
 *   chosen trace id;
 * - `trust`: the caller's sampled flag decides, as the configured (parent-based) sampler says.
 */
export const INCOMING_CONTEXT_MODES = ["correlate", "trust"] as const;
export type IncomingContextMode = (typeof INCOMING_CONTEXT_MODES)[number];

/**
 * Marks a context extracted from an incoming request's headers (set by @svc/http's server spans),
 * so the sampler knows the parent is a caller's, not one of our own hops (NATS headers, stored
 * contexts), which are always followed.
 */
export const INCOMING_REQUEST_CONTEXT = createContextKey("svc.telemetry.incoming-request");

/** `ctx` marked as extracted from an incoming request. */
export function markIncoming(ctx: Context): Context {
  return ctx.setValue(INCOMING_REQUEST_CONTEXT, true);
}

/** Which decision a sampler name makes for a new trace, and whether a parent's flag overrides it. */
function readName(name: SamplerName | undefined): {
  root: "always_on" | "always_off" | "ratio";
  parentBased: boolean;
} {
  const full = name ?? "parentbased_always_on";
  const parentBased = full.startsWith("parentbased_");
  const root = parentBased ? full.slice("parentbased_".length) : full;
  return { root: root === "always_on" || root === "always_off" ? root : "ratio", parentBased };
}

/** The root decision: always, never, or `Ratio` keeping that share of the traces. */
function rootSampler(
  name: SamplerName | undefined,
  ratio: number | undefined,
  Ratio: new (ratio: number) => Sampler,
): Sampler {
  const { root } = readName(name);
  if (root === "always_on") return new AlwaysOnSampler();
  if (root === "always_off") return new AlwaysOffSampler();
  return new Ratio(ratio ?? 1);
}

/** The sampler the standard variables describe; default parentbased_always_on, as the SDK's. */
export function samplerFromSettings(
  name: SamplerName | undefined,
  ratio: number | undefined,
): Sampler {
  const root = rootSampler(name, ratio, TraceIdRatioBasedSampler);
  return readName(name).parentBased ? new ParentBasedSampler({ root }) : root;
}

/**
 * The decision for a trace the edge starts in `correlate` mode: the configured sampler's root
 * decision, but the ratio drawn at random rather than read from the trace id, which the caller
 * chose (a trace-id-ratio sampler would keep every request of a caller sending a low trace id).
 */
export function edgeSampler(name: SamplerName | undefined, ratio: number | undefined): Sampler {
  return rootSampler(name, ratio, RandomRatioSampler);
}

class RandomRatioSampler implements Sampler {
  readonly #ratio: number;
  constructor(ratio: number) {
    this.#ratio = ratio;
  }
  shouldSample(): SamplingResult {
    return {
      decision:
        Math.random() < this.#ratio
          ? SamplingDecision.RECORD_AND_SAMPLED
          : SamplingDecision.NOT_RECORD,
    };
  }
  toString(): string {
    return `RandomRatioSampler{${this.#ratio}}`;
  }
}

/**
 * Our sampler, three decisions in order:
 * - drops CLIENT spans that would start a trace of their own: a database query or an outgoing
 *   request outside any traced operation (a readiness probe's ping, a poll that found no work).
 *   Our instrumentations are told to require a parent already; this keeps any other library's (or
 *   a future instrumentation's) orphans out too;
 * - a SERVER span whose parent came in a request's headers is decided by `edge` as a new trace
 *   (correlate mode; undefined: trust the caller);
 * - everything else by `inner`, the configured sampler.
 */
export class ServiceSampler implements Sampler {
  readonly #inner: Sampler;
  readonly #edge: Sampler | undefined;
  constructor(inner: Sampler, edge?: Sampler) {
    this.#inner = inner;
    this.#edge = edge;
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
    if (this.#edge && kind === SpanKind.SERVER && ctx.getValue(INCOMING_REQUEST_CONTEXT) === true)
      return this.#edge.shouldSample(ROOT_CONTEXT, traceId, name, kind, attributes, links);
    return this.#inner.shouldSample(ctx, traceId, name, kind, attributes, links);
  }
  toString(): string {
    return `ServiceSampler{${this.#inner.toString()}, edge: ${this.#edge?.toString() ?? "trust"}}`;
  }
}
