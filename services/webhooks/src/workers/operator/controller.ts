import type { KubeConfig } from "@kubernetes/client-node";
import { ReconcileLoop } from "@svc/k8s";
import type { Logger, ReconcileLoopOptions } from "@svc/k8s";
import type { SubscriptionPort } from "./port.ts";
import { WebhookSubscriptionReconciler } from "./reconciler.ts";
import { webhookSubscriptionKind } from "./types.ts";

export type WebhookSubscriptionControllerOptions = {
  kubeConfig: KubeConfig;
  /** The namespace watched: the dispatcher's own (its Role is namespaced). */
  namespace: string;
  port: SubscriptionPort;
  logger: Logger;
  /** The pod name, reported on events. */
  instance: string;
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
  });
  return new ReconcileLoop({
    name: "webhook-subscriptions",
    kubeConfig: options.kubeConfig,
    resource: webhookSubscriptionKind(options.namespace),
    logger: options.logger,
    reconcile: reconciler.reconcile,
    ...options.loop,
  });
}
