import { findCondition, setCondition } from "./conditions.ts";
import type { SyncOutcome } from "./sync-subscription.ts";
import type { Condition, WebhookSubscription, WebhookSubscriptionStatus } from "./types.ts";

/** The one condition the operator writes. */
export const READY = "Ready";

/**
 * Every reason it gives Ready: True with Reconciled, False with one of the others. The CRD's
 * `status.conditions` description and the platform guide list exactly these
 * (test/chart/crd.test.ts).
 */
export const READY_REASONS = [
  "Reconciled",
  "InvalidURL",
  "InvalidEventType",
  "UnknownClient",
  "SecretConflict",
  "SecretMissing",
  "BackendUnavailable",
] as const;
export type ReadyReason = (typeof READY_REASONS)[number];

/** The status a pass leads to: it describes the spec generation just reconciled. */
export function nextStatus(
  cr: WebhookSubscription,
  outcome: SyncOutcome,
  now: Date,
): WebhookSubscriptionStatus {
  const generation = cr.metadata.generation;
  const subscriptionId = outcome.subscriptionId ?? cr.status?.subscriptionId;
  const conditions = setCondition(
    cr.status?.conditions,
    {
      type: READY,
      status: outcome.ready ? "True" : "False",
      reason: outcome.reason,
      message: outcome.message,
      ...(generation !== undefined && { observedGeneration: generation }),
    },
    now,
  );
  return {
    ...cr.status,
    ...(subscriptionId !== undefined && { subscriptionId }),
    ...(generation !== undefined && { observedGeneration: generation }),
    conditions,
  };
}

/** Equal for our purposes: an unchanged status is not written (each write is a watch event). */
export function sameStatus(
  a: WebhookSubscriptionStatus | undefined,
  b: WebhookSubscriptionStatus,
): boolean {
  if (a?.subscriptionId !== b.subscriptionId || a?.observedGeneration !== b.observedGeneration)
    return false;
  const left = a?.conditions ?? [];
  const right = b.conditions ?? [];
  return (
    left.length === right.length &&
    right.every((c) => sameCondition(findCondition(left, c.type), c))
  );
}

function sameCondition(a: Condition | undefined, b: Condition): boolean {
  return (
    a !== undefined &&
    a.status === b.status &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.lastTransitionTime === b.lastTransitionTime &&
    a.observedGeneration === b.observedGeneration
  );
}

export type EventNote = { type: "Normal" | "Warning"; reason: string; message: string };

/**
 * The event a pass deserves: creation, a spec change or a secret rotation when it worked; a
 * failure when it is new (another reason, or a new generation), so retries do not flood events.
 */
export function eventFor(cr: WebhookSubscription, outcome: SyncOutcome): EventNote | undefined {
  const before = findCondition(cr.status?.conditions, READY);
  const newGeneration = cr.status?.observedGeneration !== cr.metadata.generation;
  if (!outcome.ready) {
    const fresh = before?.status !== "False" || before.reason !== outcome.reason || newGeneration;
    return fresh
      ? { type: "Warning", reason: outcome.reason, message: outcome.message }
      : undefined;
  }
  const id = outcome.subscriptionId ?? "";
  if (cr.status?.subscriptionId === undefined)
    return {
      type: "Normal",
      reason: "Created",
      message: `created subscription ${id} for client ${cr.spec.clientId}`,
    };
  if (cr.status.subscriptionId !== id)
    return {
      type: "Normal",
      reason: "Created",
      message: `re-created subscription ${id} for client ${cr.spec.clientId}`,
    };
  if (newGeneration)
    return {
      type: "Normal",
      reason: "Updated",
      message: `updated subscription ${id} to generation ${cr.metadata.generation ?? 0}`,
    };
  if (outcome.secretWritten)
    return {
      type: "Normal",
      reason: "SecretRotated",
      message: `wrote a new signing secret to Secret "${cr.spec.secretName}"`,
    };
  if (before?.status !== "True")
    return { type: "Normal", reason: "Reconciled", message: outcome.message };
  return undefined;
}
