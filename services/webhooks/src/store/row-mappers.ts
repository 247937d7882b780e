import type { AttemptRow, DeliveryRow, SubscriptionRow } from "./schema.ts";
import type {
  Attempt,
  AttemptOutcome,
  Delivery,
  DisabledReason,
  ErrorClass,
  FailureReason,
  Subscription,
} from "../domain/model.ts";

/** Row → domain. Sealed secrets stay behind: no domain object carries them. */
export function toSubscription(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    ownerClientId: row.ownerClientId,
    url: row.url,
    eventTypes: row.eventTypes,
    enabled: row.enabled,
    // A row disabled by a version that did not record why was disabled on request.
    disabledReason: row.enabled
      ? null
      : ((row.disabledReason as DisabledReason | null) ?? "requested"),
    disabledAt: row.enabled ? null : row.disabledAt,
    secretRotatedAt: row.secretRotatedAt,
    previousSecretExpiresAt: row.previousSecretExpiresAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    subscriptionId: row.subscriptionId,
    eventUuid: row.eventUuid,
    eventType: row.eventType,
    status: row.status,
    failureReason: row.failureReason as FailureReason | null,
    round: row.round,
    roundAttempts: row.roundAttempts,
    attemptCount: row.attemptCount,
    lastStatusCode: row.lastStatusCode,
    lastAttemptAt: row.lastAttemptAt,
    nextAttemptAt: row.nextAttemptAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function toAttempt(row: AttemptRow): Attempt {
  return {
    number: row.number,
    round: row.round,
    attemptedAt: row.attemptedAt,
    durationMs: row.durationMs,
    statusCode: row.statusCode,
    outcome: row.outcome as AttemptOutcome,
    errorClass: row.errorClass as ErrorClass | null,
    errorDetail: row.errorDetail,
    responseSample: row.responseSample,
  };
}
