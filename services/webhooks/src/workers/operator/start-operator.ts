import type pg from "pg";
import { KubeConfig } from "@kubernetes/client-node";
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
};

/** The port over this service's domain module, on the dispatcher's pool. */
export function createSubscriptionPort(
  deps: Omit<OperatorDeps, "config"> & {
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
  const controller = createWebhookSubscriptionController({
    kubeConfig,
    namespace: config.POD_NAMESPACE!, // required by config when OPERATOR_ENABLED
    port: createSubscriptionPort(deps),
    logger,
    instance: config.POD_NAME!,
  });
  return { name: "webhook subscription operator", run: (signal) => controller.run(signal) };
}
