import type pg from "pg";
import type { Meter } from "@opentelemetry/api";
import { KubeConfig } from "@kubernetes/client-node";
import { controllerMetrics, type ControllerMetrics } from "@svc/k8s";
import type { LeaderTask } from "@svc/leader";
import { createDrizzle } from "@svc/db";
import type { Logger } from "@svc/logging";
import { createSubscriptionService } from "../../app.ts";
import type { DispatcherConfig } from "../../config.ts";
import * as schema from "../../store/schema.ts";
import type { Clock } from "../../domain/model.ts";
import type { DeliveryQueue } from "../../domain/ports.ts";
import type { HostResolver } from "../../outbound/resolver.ts";
import { createWebhookSubscriptionController } from "./controller.ts";
import { PgK8sLinks } from "./k8s-links.ts";
import { ServiceSubscriptionPort } from "./subscription-port.ts";

export type OperatorDeps = {
  config: DispatcherConfig;
  pool: pg.Pool;
  queue: DeliveryQueue;
  resolver: HostResolver;
  clock: Clock;
  logger: Logger;
  /** The process's Meter: the controller's metrics join the dispatcher's on /metrics. */
  meter: Meter;
  /** The election the operator runs under (leader_election_master_status{name}). */
  leadership: string;
};

/** The port over this service's domain module, on the dispatcher's pool. */
export function createSubscriptionPort(
  deps: Omit<OperatorDeps, "config" | "meter" | "leadership"> & {
    config: Parameters<typeof createSubscriptionService>[0]["config"];
  },
): ServiceSubscriptionPort {
  const service = createSubscriptionService(deps);
  return new ServiceSubscriptionPort(service, new PgK8sLinks(createDrizzle(deps.pool, schema)));
}

/**
 * The WebhookSubscription controller as a task of the dispatcher's leader group, so it runs on
 * the elected replica only; the others wait as candidates. Losing leadership or stopping the group
 * ends the controller.
 */
export function operatorTask(deps: OperatorDeps): LeaderTask {
  const { config, logger } = deps;
  // The pod's ServiceAccount token and the API server's address (the chart mounts the token for the dispatcher only).
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromCluster();
  const metrics = controllerMetrics(deps.meter);
  const controller = createWebhookSubscriptionController({
    kubeConfig,
    namespace: config.POD_NAMESPACE!, // required by config when OPERATOR_ENABLED
    port: createSubscriptionPort(deps),
    logger,
    instance: config.POD_NAME!,
    metrics,
    ...(config.OPERATOR_SECRET_NAMESPACE !== undefined && {
      secretNamespace: config.OPERATOR_SECRET_NAMESPACE,
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
