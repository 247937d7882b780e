import { z } from "zod";
import { SpanStatusCode, type Span } from "@opentelemetry/api";
import { getTraceContext, type Decision, type Delivery } from "@svc/messaging";
import type { Logger } from "@svc/logging";
import type { Clock, DeliveryMessage } from "../../domain/model.ts";
import { deliveryHeaders } from "../../domain/signing.ts";
import type {
  AttemptContext,
  DispatchStore,
  SecretBox,
  WebhookHttpClient,
} from "../../domain/ports.ts";
import { classify } from "../../domain/classify.ts";
import { nextStep, type RetryPolicy } from "../../domain/retry-policy.ts";
import type { InFlightCaps } from "./in-flight-caps.ts";
import { inDeliverySpan } from "./tracing.ts";
import { recordAttempt, type DeliveryMetrics } from "./metrics.ts";

export const deliveryMessageSchema = z.object({
  v: z.literal(1),
  delivery_uuid: z.uuid(),
  subscription_uuid: z.uuid(),
  event_uuid: z.uuid(),
  round: z.number().int().min(1),
});

export type DeliveryWorkerDeps = {
  store: DispatchStore;
  client: WebhookHttpClient;
  secretBox: SecretBox;
  policy: RetryPolicy;
  caps: InFlightCaps;
  clock: Clock;
  logger: Logger;
  /** Attempts by outcome and number, POST duration, delivery latency, dead deliveries. */
  metrics?: DeliveryMetrics | undefined;
};

const ACK: Decision = { action: "ack" };
// attempt()'s answer when another copy of the message recorded the same attempt first.
const LOST_RACE = Symbol("lost race");
// A redelivery this much ahead of its scheduled time (a restart, a lost nak) is put back to wait.
const EARLY_TOLERANCE_MS = 50;

/**
 * One delivery message → at most one attempt. The attempt number, the schedule and the final
 * state come from the delivery record, not from JetStream's delivery count: that count also
 * rises for redeliveries that were no attempt (a crashed worker, a busy subscriber, a database
 * outage), and the consumer has no max_deliver for that reason
 * (docs/decisions/delivery-retries-with-nak-delay.md).
 */
export function createDeliveryHandler(
  deps: DeliveryWorkerDeps,
): (d: Delivery<DeliveryMessage>) => Promise<Decision> {
  return async ({ data: message, headers, subject }) => {
    // The slot first, so the checks below run just before the POST, not before a wait.
    const key = message.subscription_uuid;
    if (!(await deps.caps.acquire(key, message.delivery_uuid)))
      return { action: "nak", delayMs: deps.caps.deferDelayMs(key, message.delivery_uuid) };
    // The slot bounds what the subscriber sees (POSTs at once), so it is handed back as soon as
    // the POST is answered: the record write after it must not slow a subscriber's rate down
    // (16 / (load + POST), not 16 / (load + POST + commit)).
    let holding = true;
    const releaseSlot = () => {
      if (holding) deps.caps.release(key);
      holding = false;
    };
    try {
      const record = await settle(deps, message);
      if ("decision" in record) return record.decision;
      const ctx = record.due;
      const info = {
        trace: ctx.trace,
        carried: getTraceContext(headers),
        subject,
        deliveryId: ctx.deliveryId,
        eventType: ctx.eventType,
        round: ctx.round,
        attempt: ctx.roundAttempts + 1,
      };
      const decision = await inDeliverySpan(info, (span) => attempt(deps, ctx, span, releaseSlot));
      if (decision !== LOST_RACE) return decision;
      // Another copy of this message (a redelivery after an ack wait ran out) recorded this
      // attempt first. Both copies settle the same stream message, so this one must agree with the
      // record: an ack here would drop the retry the other copy scheduled (a retry already due
      // comes back at once).
      const after = await settle(deps, message);
      return "decision" in after ? after.decision : { action: "nak", delayMs: 0 };
    } finally {
      releaseSlot();
    }
  };
}

/**
 * What the delivery record says about this message: ack it (gone with its subscription, from an
 * older round, finished, or its subscription disabled), put it back until its scheduled time (a
 * redelivery before that: a worker that died between recording a retry and its nak, a restart),
 * or the attempt is due.
 */
async function settle(
  deps: DeliveryWorkerDeps,
  message: DeliveryMessage,
): Promise<{ decision: Decision } | { due: AttemptContext }> {
  const ctx = await deps.store.loadForAttempt(message.delivery_uuid);
  if (!ctx || ctx.round !== message.round || ctx.status !== "pending") return { decision: ACK };
  if (!ctx.enabled) {
    await deps.store.closeAsDisabled(ctx.deliveryId, ctx.round, deps.clock.now());
    return { decision: ACK };
  }
  const earlyByMs = (ctx.nextAttemptAt?.getTime() ?? 0) - deps.clock.now().getTime();
  return earlyByMs > EARLY_TOLERANCE_MS
    ? { decision: { action: "nak", delayMs: earlyByMs } }
    : { due: ctx };
}

async function attempt(
  deps: DeliveryWorkerDeps,
  ctx: AttemptContext,
  span: Span,
  posted: () => void,
): Promise<Decision | typeof LOST_RACE> {
  const startedAt = deps.clock.now();
  const timestampSeconds = Math.floor(startedAt.getTime() / 1000);
  const headers = deliveryHeaders({
    eventUuid: ctx.eventUuid,
    eventType: ctx.eventType,
    deliveryUuid: ctx.deliveryId,
    timestampSeconds,
    body: ctx.body,
    secrets: signingSecrets(deps.secretBox, ctx, startedAt),
  });
  const result = await deps.client.post(ctx.url, ctx.body, headers);
  posted();
  const verdict = classify(result);
  const number = ctx.roundAttempts + 1;
  const next = nextStep(verdict, number, deps.policy);
  const finishedAt = deps.clock.now();
  const recorded = await deps.store.recordAttempt({
    deliveryId: ctx.deliveryId,
    round: ctx.round,
    expectedRoundAttempts: ctx.roundAttempts,
    attemptedAt: startedAt,
    durationMs: result.durationMs,
    statusCode: result.kind === "response" ? result.statusCode : null,
    outcome: next.outcome,
    errorClass: verdict.errorClass,
    errorDetail: result.kind === "error" ? result.message : null,
    responseSample: result.kind === "response" && result.sample !== "" ? result.sample : null,
    status: next.outcome === "retrying" ? "pending" : next.outcome,
    failureReason: next.failureReason,
    nextAttemptAt: next.retryInMs === null ? null : new Date(finishedAt.getTime() + next.retryInMs),
  });
  if (!recorded) return LOST_RACE;
  span.setAttributes({
    "webhook.outcome": next.outcome,
    ...(result.kind === "response" && { "http.response.status_code": result.statusCode }),
  });
  if (next.outcome !== "succeeded")
    span.setStatus({ code: SpanStatusCode.ERROR, message: verdict.errorClass ?? next.outcome });
  recordAttempt(deps.metrics, {
    outcome: next.outcome,
    attempt: number,
    round: ctx.round,
    durationMs: result.durationMs,
    createdAt: ctx.createdAt,
    finishedAt,
  });
  if (next.outcome === "succeeded") return ACK;
  if (next.retryInMs !== null) return { action: "nak", delayMs: next.retryInMs };
  deps.logger.info(
    {
      delivery_uuid: ctx.deliveryId,
      outcome: next.outcome,
      error_class: verdict.errorClass,
      attempt: number,
    },
    "delivery ended without success",
  );
  return { action: "term" };
}

/** The current secret, and during a rotation's overlap the previous one too (newest first). */
function signingSecrets(box: SecretBox, ctx: AttemptContext, now: Date): string[] {
  const current = box.open(ctx.secretSealed, ctx.subscriptionId);
  const overlapping =
    ctx.previousSecretSealed !== null &&
    ctx.previousSecretExpiresAt !== null &&
    ctx.previousSecretExpiresAt > now;
  return overlapping
    ? [current, box.open(ctx.previousSecretSealed!, ctx.subscriptionId)]
    : [current];
}
