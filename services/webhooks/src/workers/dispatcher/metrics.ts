import type { BatchObservableResult, Counter, Histogram, Meter } from "@opentelemetry/api";
import type { JetStreamManager } from "@svc/messaging";
import { bounded } from "@svc/time";
import type { AttemptOutcome } from "../../domain/model.ts";

/** What the delivery worker records; built once per dispatcher from the process's Meter. */
export type DeliveryMetrics = {
  /**
   * One per attempt made: `outcome` (succeeded, retrying, failed, dead) and `attempt` (1-based,
   * within the round).
   */
  attempts: Counter;
  /** The POST: connect, TLS, request and the capped response, by outcome. */
  attemptDuration: Histogram;
  /** From the delivery record's creation (the fan-out) to the successful POST, first round only. */
  latency: Histogram;
  /** Deliveries that used up every attempt. */
  dead: Counter;
};

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
// Retries stretch a delivery over hours (the default schedule: up to ~7.4 h), so the latency
// buckets do too.
const LATENCY_BUCKETS = [
  0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3_600, 21_600, 43_200,
];

export function deliveryMetrics(meter: Meter): DeliveryMetrics {
  return {
    attempts: meter.createCounter("webhook.delivery.attempts", {
      unit: "{attempt}",
      description: "Webhook delivery attempts by outcome and attempt number",
    }),
    attemptDuration: meter.createHistogram("webhook.delivery.attempt.duration", {
      unit: "s",
      description: "Duration of one webhook POST",
      advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
    }),
    latency: meter.createHistogram("webhook.delivery.latency", {
      unit: "s",
      description: "Time from a delivery's fan-out to its successful POST, retries included",
      advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
    }),
    dead: meter.createCounter("webhook.delivery.dead", {
      unit: "{delivery}",
      description: "Webhook deliveries that failed every attempt (dead)",
    }),
  };
}

/** Records one finished attempt. */
export function recordAttempt(
  m: DeliveryMetrics | undefined,
  a: {
    outcome: AttemptOutcome;
    attempt: number;
    round: number;
    durationMs: number;
    createdAt: Date;
    finishedAt: Date;
  },
): void {
  if (!m) return;
  m.attempts.add(1, { outcome: a.outcome, attempt: a.attempt });
  m.attemptDuration.record(a.durationMs / 1000, { outcome: a.outcome });
  if (a.outcome === "dead") m.dead.add(1);
  if (a.outcome === "succeeded" && a.round === 1)
    m.latency.record(Math.max(0, a.finishedAt.getTime() - a.createdAt.getTime()) / 1000, {
      attempt: a.attempt,
    });
}

/**
 * `messaging.consumer.pending` (stored, not yet delivered to a worker) and
 * `messaging.consumer.ack_pending` (delivered, not yet acknowledged: attempts running and
 * retries waiting out their delay) of each consumer, read from JetStream at each collection.
 * Returns the function that stops observing.
 */
export function observeConsumers(
  meter: Meter,
  jsm: JetStreamManager,
  consumers: ReadonlyArray<{ stream: string; consumer: string }>,
): () => void {
  const pending = meter.createObservableGauge("messaging.consumer.pending", {
    unit: "{message}",
    description: "Messages in the stream not yet delivered to this consumer",
  });
  const ackPending = meter.createObservableGauge("messaging.consumer.ack_pending", {
    unit: "{message}",
    description: "Messages delivered to this consumer and not yet acknowledged",
  });
  const callback = async (result: BatchObservableResult) => {
    await Promise.all(
      consumers.map(async ({ stream, consumer }) => {
        const info = await bounded(jsm.consumers.info(stream, consumer), 2_000);
        if (!info) return;
        const attributes = {
          "messaging.system": "nats",
          "messaging.destination.name": stream,
          "messaging.consumer.group.name": consumer,
        };
        result.observe(pending, info.num_pending, attributes);
        result.observe(ackPending, info.num_ack_pending, attributes);
      }),
    );
  };
  meter.addBatchObservableCallback(callback, [pending, ackPending]);
  return () => meter.removeBatchObservableCallback(callback, [pending, ackPending]);
}
