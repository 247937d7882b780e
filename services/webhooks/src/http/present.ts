import { isoWithOffset } from "@svc/events";
import type { Attempt, Delivery, DeliveryDetail, Subscription } from "../domain/model.ts";
import type { Recovery } from "../domain/subscription-service.ts";

/**
 * Domain → response shapes (README, "API"). Secrets appear only where a handler adds them.
 */
const iso = (d: Date | null): string | null => (d === null ? null : isoWithOffset(d));

export function presentSubscription(s: Subscription) {
  return {
    webhook_uuid: s.id,
    url: s.url,
    event_types: s.eventTypes,
    enabled: s.enabled,
    disabled_reason: s.disabledReason,
    disabled_at: iso(s.disabledAt),
    secret_rotated_at: iso(s.secretRotatedAt),
    // Until this instant the secret before the last rotation also signs (a second signature).
    previous_secret_expires_at: iso(s.previousSecretExpiresAt),
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
  };
}

export function presentDelivery(d: Delivery) {
  return {
    delivery_uuid: d.id,
    webhook_uuid: d.subscriptionId,
    event_uuid: d.eventUuid,
    event_type: d.eventType,
    status: d.status,
    failure_reason: d.failureReason,
    round: d.round,
    attempt_count: d.attemptCount,
    round_attempt_count: d.roundAttempts,
    last_status_code: d.lastStatusCode,
    last_attempt_at: iso(d.lastAttemptAt),
    next_attempt_at: d.status === "pending" ? iso(d.nextAttemptAt) : null,
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
  };
}

export function presentAttempt(a: Attempt) {
  return {
    number: a.number,
    round: a.round,
    attempted_at: iso(a.attemptedAt),
    duration_ms: a.durationMs,
    status_code: a.statusCode,
    outcome: a.outcome,
    error_class: a.errorClass,
    error_detail: a.errorDetail,
    response_sample: a.responseSample,
  };
}

export function presentRecovery(webhookUuid: string, r: Recovery) {
  return {
    webhook_uuid: webhookUuid,
    since: iso(r.since),
    until: iso(r.until),
    queued: r.queued,
  };
}

export function presentDeliveryDetail(d: DeliveryDetail) {
  return { ...presentDelivery(d), attempts: d.attempts.map(presentAttempt) };
}
