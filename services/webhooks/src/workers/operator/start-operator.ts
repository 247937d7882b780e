import type { Meter } from "@opentelemetry/api";
import { controllerMetrics, loadKubeConfig, type ControllerMetrics } from "@svc/k8s";
import type { LeaderTask } from "@svc/leader";
import type { Logger } from "@svc/logging";
import type { DispatcherConfig } from "../../config.ts";
import { createWebhookSubscriptionController } from "./controller.ts";
import type { SubscriptionPort } from "./port.ts";

export type OperatorDeps = {
  config: DispatcherConfig;
  /** The service's subscriptions as the controller sees them (compose.ts). */
  port: SubscriptionPort;
  logger: Logger;
  /** The process's Meter: the controller's metrics join the dispatcher's on /metrics. */
  meter: Meter;
  /** The election the operator runs under (leader_election_master_status{name}). */
  leadership: string;
};

/**
 * The WebhookSubscription controller as a task of the dispatcher's leader group, so it runs on
 * the elected replica only; the others wait as candidates. Losing leadership or stopping the group
 * ends the controller.
 */
export function operatorTask(deps: OperatorDeps): LeaderTask {
  const { config, logger } = deps;
  // The pod's ServiceAccount token and the API server's address (the chart mounts the token for
  // the dispatcher only), or KUBECONFIG outside a cluster.
  const kubeConfig = loadKubeConfig(config.KUBECONFIG);
  const metrics = controllerMetrics(deps.meter);
  const controller = createWebhookSubscriptionController({
    kubeConfig,
    namespace: config.POD_NAMESPACE!, // required by config when OPERATOR_ENABLED
    port: deps.port,
    logger,
    instance: config.POD_NAME!,
    metrics,
    ...(config.OPERATOR_SECRET_NAMESPACE !== undefined && {
      secretNamespace: config.OPERATOR_SECRET_NAMESPACE,
    }),
    ...(config.OPERATOR_LABEL_SELECTOR !== undefined && {
      labelSelector: config.OPERATOR_LABEL_SELECTOR,
    }),
  });
  return leaderReporting(metrics, deps.leadership, {
    name: "webhook subscription operator",
    run: (signal) => controller.run(signal),
  });
}

/** The task, reporting leader_election_master_status 1 while it runs (as leader) and 0 otherwise. */
export function leaderReporting(
  metrics: ControllerMetrics,
  election: string,
  task: LeaderTask,
): LeaderTask {
  metrics.leading(election, false);
  return {
    name: task.name,
    run: async (signal, fence) => {
      metrics.leading(election, true);
      try {
        await task.run(signal, fence);
      } finally {
        metrics.leading(election, false);
      }
    },
  };
}
