import type { KubeConfig } from "@kubernetes/client-node";
import { ReconcileLoop } from "@svc/k8s";
import type { ControllerMetrics, ReconcileLoopOptions } from "@svc/k8s";
import type { Logger } from "@svc/logging";
import type { SubscriptionPort } from "./port.ts";
import { WebhookSubscriptionReconciler } from "./reconciler.ts";
import { ownerKeysOf } from "./signing-secret.ts";
import { MANAGED_BY, MANAGED_BY_LABEL, webhookSubscriptionKind } from "./types.ts";

/** The controller's name in logs and in the controller_runtime_* and workqueue_* metrics. */
export const CONTROLLER_NAME = "webhooksubscription";

export type WebhookSubscriptionControllerOptions = {
  kubeConfig: KubeConfig;
  /** The namespace watched: the dispatcher's own (its Role is namespaced). */
  namespace: string;
  /**
   * Only the resources this label selector matches (OPERATOR_LABEL_SELECTOR): two releases in one
   * namespace each take their own; default all.
   */
  labelSelector?: string;
  port: SubscriptionPort;
  logger: Logger;
  /** The pod name, reported on events. */
  instance: string;
  /** A namespace that holds only the signing Secrets; default `namespace` (docs/decisions/operator-rbac.md). */
  secretNamespace?: string;
  metrics?: ControllerMetrics;
  requestTimeoutMs?: number;
  loop?: Pick<
    ReconcileLoopOptions,
    | "workers"
    | "resyncMs"
    | "retryMinMs"
    | "retryMaxMs"
    | "watchBackoffMinMs"
    | "watchBackoffMaxMs"
    | "watchTimeoutSeconds"
  >;
};

/**
 * The WebhookSubscription controller, ready to run: `elector.run((signal) => controller.run(signal), stop)`
 * so that only the leader reconciles.
 */
export function createWebhookSubscriptionController(
  options: WebhookSubscriptionControllerOptions,
): ReconcileLoop {
  const reconciler = new WebhookSubscriptionReconciler({
    kubeConfig: options.kubeConfig,
    port: options.port,
    logger: options.logger,
    instance: options.instance,
    ...(options.requestTimeoutMs !== undefined && { requestTimeoutMs: options.requestTimeoutMs }),
    ...(options.secretNamespace !== undefined && { secretNamespace: options.secretNamespace }),
    ...(options.labelSelector !== undefined && { labelSelector: options.labelSelector }),
  });
  return new ReconcileLoop({
    name: CONTROLLER_NAME,
    kubeConfig: options.kubeConfig,
    resource: webhookSubscriptionKind(options.namespace),
    ...(options.labelSelector !== undefined && { labelSelector: options.labelSelector }),
    logger: options.logger,
    reconcile: reconciler.reconcile,
    // The signing Secrets (controller-runtime's Owns): a deleted or edited one is seen at once.
    watches: [
      {
        resource: {
          group: "",
          version: "v1",
          plural: "secrets",
          namespace: options.secretNamespace ?? options.namespace,
        },
        labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY}`,
        // Only resources of the watched namespace (an annotation could name any).
        keysFor: (secret) =>
          ownerKeysOf(secret).filter((key) => key.startsWith(`${options.namespace}/`)),
      },
    ],
    ...(options.metrics && { metrics: options.metrics }),
    ...options.loop,
  });
}
