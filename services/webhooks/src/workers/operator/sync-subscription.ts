import type { ConfigurationOptions, CoreV1Api } from "@kubernetes/client-node";
import { InvalidSubscriptionError } from "./port.ts";
import type { DesiredSubscription, SubscriptionPort, SubscriptionRef } from "./port.ts";
import { inspectSecret, writeSecret } from "./signing-secret.ts";
import type { SecretPlace } from "./signing-secret.ts";
import type { ReadyReason } from "./status.ts";
import type { WebhookSubscription } from "./types.ts";

/** What one pass over a live (not deleting) resource found; becomes status, an event, a retry. */
export type SyncOutcome = {
  ready: boolean;
  reason: ReadyReason;
  message: string;
  subscriptionId?: string;
  secretWritten?: "created" | "updated";
  /** Set for transient failures: the reconcile throws it, so the key is retried with backoff. */
  retry?: unknown;
};

export type SyncDeps = {
  core: CoreV1Api;
  port: SubscriptionPort;
  place: SecretPlace;
  options: () => ConfigurationOptions;
};

export function refOf(cr: WebhookSubscription): SubscriptionRef {
  return {
    namespace: cr.metadata.namespace ?? "",
    name: cr.metadata.name ?? "",
    uid: cr.metadata.uid ?? "",
  };
}

export function desiredOf(cr: WebhookSubscription): DesiredSubscription {
  return {
    url: cr.spec.url,
    eventTypes: [...cr.spec.eventTypes],
    enabled: cr.spec.enabled ?? true,
  };
}

/**
 * The Secret is checked before the port is called: a secret the webhooks service hands out
 * exists nowhere else, so it is only asked for when there is a place to put it. A missing or
 * empty Secret of ours asks the port for a (rotated) secret, which also heals a write that
 * failed after the subscription was created.
 */
export async function syncSubscription(
  deps: SyncDeps,
  cr: WebhookSubscription,
): Promise<SyncOutcome> {
  const state = await inspectSecret(deps.core, cr, deps.place, deps.options());
  if (state.kind === "foreign") {
    return {
      ready: false,
      reason: "SecretConflict",
      message: `Secret "${cr.spec.secretName}" exists and is not owned by this WebhookSubscription; it was left untouched. Delete it or choose another secretName.`,
    };
  }
  const needSecret = state.kind === "missing" || !state.hasValue;
  let result;
  try {
    result = await deps.port.ensure(refOf(cr), cr.spec.clientId, desiredOf(cr), { needSecret });
  } catch (err) {
    if (err instanceof InvalidSubscriptionError)
      return { ready: false, reason: err.reason, message: err.message };
    return {
      ready: false,
      reason: "BackendUnavailable",
      message: "the webhooks service did not answer; retrying",
      retry: err,
    };
  }
  const { subscriptionId, secret } = result;
  if (secret === undefined && needSecret) {
    return {
      ready: false,
      reason: "SecretMissing",
      message: `the webhooks service returned no signing secret for subscription ${subscriptionId}`,
      subscriptionId,
    };
  }
  const secretWritten =
    secret === undefined
      ? undefined
      : await writeSecret(deps.core, cr, deps.place, state, secret, deps.options());
  const message = desiredOf(cr).enabled
    ? `subscription ${subscriptionId} matches the spec`
    : `subscription ${subscriptionId} matches the spec (paused: enabled is false)`;
  return {
    ready: true,
    reason: "Reconciled",
    message,
    subscriptionId,
    ...(secretWritten && { secretWritten }),
  };
}
