import {
  buildEvent,
  EVENT_CATALOGUE,
  eventTypesFor,
  isoWithOffset,
  OCCURRED_AT,
  type EventType,
} from "@svc/events";
import { eventDescription, eventPayloadSchema } from "@svc/openapi";
import type { Attempt, Delivery, DeliveryDetail, Subscription } from "../domain/model.ts";
import type { Recovery } from "../domain/subscription-service.ts";
import { isLoopbackUrl } from "../domain/url-policy.ts";

/** The `warning` of a subscription whose URL is on loopback (only a local stack accepts one). */
export const LOOPBACK_URL_WARNING =
  "loopback_url: deliveries go to the machine the service runs on; only a local stack (WEBHOOK_ALLOW_LOOPBACK) accepts this URL, the sandbox and production refuse it";

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
    ...(isLoopbackUrl(s.url) && { warning: LOOPBACK_URL_WARNING }),
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

/** One event type of the catalogue, with an example payload addressed to this installation. */
export function presentEventType(type: EventType, publicBaseUrl: string) {
  return {
    event_type: type,
    entity_type: EVENT_CATALOGUE[type],
    description: eventDescription(type),
    occurred_at: OCCURRED_AT[type],
    schema: eventPayloadSchema(type) as Record<string, unknown>,
    example: buildEvent({
      type,
      entityId: type === "system.ping" ? "ping" : "example-1",
      publicBaseUrl,
      eventUuid: "00000000-0000-4000-8000-000000000000",
      occurredAt: new Date("2026-01-15T09:30:00Z"),
    }) as unknown as Record<string, unknown>,
  };
}

/** The catalogue of an environment (the sandbox has no `application.submitted`). */
export function presentCatalogue(environment: "production" | "sandbox", publicBaseUrl: string) {
  return eventTypesFor(environment).map((type) => presentEventType(type, publicBaseUrl));
}
