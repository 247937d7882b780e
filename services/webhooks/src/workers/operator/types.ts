import type { V1ObjectMeta } from "@kubernetes/client-node";
import type { ResourceKind } from "@svc/k8s";

/** From charts/integration-service/crds/webhooksubscriptions.integration.svc.io.yaml. */
export const WEBHOOK_SUBSCRIPTION = {
  group: "integration.svc.io",
  version: "v1alpha1",
  plural: "webhooksubscriptions",
  kind: "WebhookSubscription",
} as const;

export const WEBHOOK_SUBSCRIPTION_API_VERSION = `${WEBHOOK_SUBSCRIPTION.group}/${WEBHOOK_SUBSCRIPTION.version}`;

/** Held until the webhooks-service subscription is removed, so deleting the resource cannot orphan it. */
export const SUBSCRIPTION_FINALIZER = "integration.svc.io/subscription";

/** The key of the signing secret in the Secret named by spec.secretName (the CRD documents it). */
export const SECRET_KEY = "secret";

/** On every signing Secret: what the operator's watch selects (RBAC cannot select by label). */
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
export const MANAGED_BY = "integration-service-dispatcher";

/**
 * On every signing Secret: the resource it belongs to ("namespace/name") and that resource's
 * uid. Owner references cannot cross namespaces, so these are how a Secret in a dedicated
 * namespace names its owner; in the resource's own namespace the owner reference is set too.
 */
export const OWNER_ANNOTATION = "integration.svc.io/webhook-subscription";
export const OWNER_UID_ANNOTATION = "integration.svc.io/webhook-subscription-uid";

export function webhookSubscriptionKind(namespace: string): ResourceKind {
  const { group, version, plural } = WEBHOOK_SUBSCRIPTION;
  return { group, version, plural, namespace };
}

export type WebhookSubscriptionSpec = {
  clientId: string;
  url: string;
  eventTypes: string[];
  /** The CRD defaults it to true; an object written before the default existed may lack it. */
  enabled?: boolean;
  secretName: string;
};

export type ConditionStatus = "True" | "False" | "Unknown";

export type Condition = {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
};

export type WebhookSubscriptionStatus = {
  subscriptionId?: string;
  observedGeneration?: number;
  conditions?: Condition[];
};

export type WebhookSubscription = {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta;
  spec: WebhookSubscriptionSpec;
  status?: WebhookSubscriptionStatus;
};
