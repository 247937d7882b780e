import type {
  ConfigurationOptions,
  CoreV1Api,
  KubernetesObject,
  V1OwnerReference,
  V1Secret,
} from "@kubernetes/client-node";
import { isNotFound } from "@svc/k8s";
import {
  MANAGED_BY,
  MANAGED_BY_LABEL,
  OWNER_ANNOTATION,
  OWNER_UID_ANNOTATION,
  SECRET_KEY,
  WEBHOOK_SUBSCRIPTION,
} from "./types.ts";
import type { WebhookSubscription } from "./types.ts";

/** What spec.secretName points at, from this resource's point of view. */
export type SecretState =
  | { kind: "missing" }
  | { kind: "foreign" }
  | { kind: "owned"; secret: V1Secret; hasValue: boolean };

/**
 * Where a resource's signing Secret lives: `secretNamespace` when the operator has a dedicated
 * one, else the resource's own namespace.
 */
export type SecretPlace = { secretNamespace?: string };

/**
 * The Secret is ours only when this very resource (by uid) is its controlling owner, or, in a
 * dedicated namespace (no owner references across namespaces), its owner annotations name it.
 */
export function isOwnedBy(secret: V1Secret, cr: WebhookSubscription): boolean {
  const uid = cr.metadata.uid;
  if (!uid) return false;
  const annotations = secret.metadata?.annotations ?? {};
  if (annotations[OWNER_UID_ANNOTATION] === uid && annotations[OWNER_ANNOTATION] === keyOf(cr))
    return true;
  return (secret.metadata?.ownerReferences ?? []).some(
    (ref) => ref.uid === uid && ref.controller === true,
  );
}

/**
 * The resource key ("namespace/name") a watched Secret belongs to, from its owner annotation or
 * its controlling WebhookSubscription owner reference; none for any other Secret.
 */
export function ownerKeysOf(secret: KubernetesObject): string[] {
  const annotated = secret.metadata?.annotations?.[OWNER_ANNOTATION];
  if (annotated) return [annotated];
  const owner = (secret.metadata?.ownerReferences ?? []).find(
    (ref) => ref.controller === true && ref.kind === WEBHOOK_SUBSCRIPTION.kind,
  );
  return owner ? [`${secret.metadata?.namespace ?? ""}/${owner.name}`] : [];
}

export async function inspectSecret(
  core: CoreV1Api,
  cr: WebhookSubscription,
  place: SecretPlace,
  opts: ConfigurationOptions,
): Promise<SecretState> {
  try {
    const secret = await core.readNamespacedSecret(
      { name: cr.spec.secretName, namespace: secretNamespaceOf(cr, place) },
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
 * In the resource's namespace an owner reference with controller + blockOwnerDeletion lets the
 * garbage collector remove the Secret with the resource; in a dedicated namespace the finalizer
 * deletes it (deleteOwnedSecret).
 */
export async function writeSecret(
  core: CoreV1Api,
  cr: WebhookSubscription,
  place: SecretPlace,
  state: SecretState,
  value: string,
  opts: ConfigurationOptions,
): Promise<"created" | "updated"> {
  const namespace = secretNamespaceOf(cr, place);
  const encoded = Buffer.from(value, "utf8").toString("base64");
  if (state.kind === "owned") {
    const body: V1Secret = {
      ...state.secret,
      data: { ...state.secret.data, [SECRET_KEY]: encoded },
    };
    await core.replaceNamespacedSecret({ name: cr.spec.secretName, namespace, body }, opts);
    return "updated";
  }
  const sameNamespace = namespace === cr.metadata.namespace;
  const body: V1Secret = {
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: {
      name: cr.spec.secretName,
      namespace,
      labels: { [MANAGED_BY_LABEL]: MANAGED_BY },
      annotations: { [OWNER_ANNOTATION]: keyOf(cr), [OWNER_UID_ANNOTATION]: cr.metadata.uid ?? "" },
      ...(sameNamespace && { ownerReferences: [ownerReference(cr)] }),
    },
    data: { [SECRET_KEY]: encoded },
  };
  await core.createNamespacedSecret({ namespace, body }, opts);
  return "created";
}

/**
 * Deletes the resource's Secret in a dedicated namespace when it is still this resource's (uid
 * precondition: a namesake made meanwhile is left alone). In the resource's own namespace the
 * garbage collector does it, so nothing is asked of the API server (and no delete right needed).
 */
export async function deleteOwnedSecret(
  core: CoreV1Api,
  cr: WebhookSubscription,
  place: SecretPlace,
  opts: () => ConfigurationOptions,
): Promise<boolean> {
  const namespace = secretNamespaceOf(cr, place);
  if (namespace === cr.metadata.namespace) return false;
  const state = await inspectSecret(core, cr, place, opts());
  if (state.kind !== "owned") return false;
  try {
    await core.deleteNamespacedSecret(
      {
        name: cr.spec.secretName,
        namespace,
        body: { preconditions: { uid: state.secret.metadata?.uid ?? "" } },
      },
      opts(),
    );
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
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

export function secretNamespaceOf(cr: WebhookSubscription, place: SecretPlace): string {
  return place.secretNamespace ?? cr.metadata.namespace ?? "";
}

function keyOf(cr: WebhookSubscription): string {
  return `${cr.metadata.namespace ?? ""}/${cr.metadata.name ?? ""}`;
}
