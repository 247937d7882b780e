import type { CoreV1Api, V1OwnerReference, V1Secret } from "@kubernetes/client-node";
import { isNotFound } from "@svc/k8s";
import type { ConfigurationOptions } from "@kubernetes/client-node";
import { SECRET_KEY, WEBHOOK_SUBSCRIPTION } from "./types.ts";
import type { WebhookSubscription } from "./types.ts";

/** What spec.secretName points at, from this resource's point of view. */
export type SecretState =
  | { kind: "missing" }
  | { kind: "foreign" }
  | { kind: "owned"; secret: V1Secret; hasValue: boolean };

export const MANAGED_BY = "integration-service-dispatcher";

/** The Secret is ours only when this very resource (by uid) is its controlling owner. */
export function isOwnedBy(secret: V1Secret, cr: WebhookSubscription): boolean {
  return (secret.metadata?.ownerReferences ?? []).some(
    (ref) => ref.uid === cr.metadata.uid && ref.controller === true,
  );
}

export async function inspectSecret(
  core: CoreV1Api,
  cr: WebhookSubscription,
  opts: ConfigurationOptions,
): Promise<SecretState> {
  try {
    const secret = await core.readNamespacedSecret(
      { name: cr.spec.secretName, namespace: namespaceOf(cr) },
      opts,
    );
    if (!isOwnedBy(secret, cr)) return { kind: "foreign" };
    const value = secret.data?.[SECRET_KEY];
    return { kind: "owned", secret, hasValue: typeof value === "string" && value.length > 0 };
  } catch (err) {
    if (isNotFound(err)) return { kind: "missing" };
    throw err;
  }
}

/**
 * Creates the Secret, or replaces the value in the one this resource owns (the caller has
 * checked ownership; the resourceVersion turns a race with anyone else into a 409 and a retry).
 * Owner reference with controller + blockOwnerDeletion: the Secret goes when the resource goes.
 */
export async function writeSecret(
  core: CoreV1Api,
  cr: WebhookSubscription,
  state: SecretState,
  value: string,
  opts: ConfigurationOptions,
): Promise<"created" | "updated"> {
  const namespace = namespaceOf(cr);
  const encoded = Buffer.from(value, "utf8").toString("base64");
  if (state.kind === "owned") {
    const body: V1Secret = {
      ...state.secret,
      data: { ...state.secret.data, [SECRET_KEY]: encoded },
    };
    await core.replaceNamespacedSecret({ name: cr.spec.secretName, namespace, body }, opts);
    return "updated";
  }
  const body: V1Secret = {
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: {
      name: cr.spec.secretName,
      namespace,
      labels: { "app.kubernetes.io/managed-by": MANAGED_BY },
      ownerReferences: [ownerReference(cr)],
    },
    data: { [SECRET_KEY]: encoded },
  };
  await core.createNamespacedSecret({ namespace, body }, opts);
  return "created";
}

export function ownerReference(cr: WebhookSubscription): V1OwnerReference {
  return {
    apiVersion: `${WEBHOOK_SUBSCRIPTION.group}/${WEBHOOK_SUBSCRIPTION.version}`,
    kind: WEBHOOK_SUBSCRIPTION.kind,
    name: cr.metadata.name ?? "",
    uid: cr.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

function namespaceOf(cr: WebhookSubscription): string {
  return cr.metadata.namespace ?? "";
}
