import type pg from "pg";
import { KubeConfig } from "@kubernetes/client-node";
import { createWebhookSubscriptionController } from "@svc/k8s";
import { PgAdvisoryLockElector, type LeaderElector } from "@svc/leader";
import { LeaseElector } from "@svc/leader/lease";
import { createDrizzle } from "@svc/db";
import type { Logger } from "@svc/logging";
import { createSubscriptionService } from "../app.ts";
import type { DispatcherConfig } from "../config.ts";
import * as schema from "../db/schema.ts";
import type { Clock } from "../domain/model.ts";
import type { DeliveryQueue } from "../domain/ports.ts";
import type { HostResolver } from "../outbound/resolver.ts";
import { PgK8sLinks } from "./k8s-links.ts";
import { ServiceSubscriptionPort } from "./subscription-port.ts";

/** What leads: the Lease's name, and the advisory lock's name outside a cluster. */
export const LEADERSHIP_NAME = "webhooks-dispatcher";

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

function createElector(
  config: DispatcherConfig,
  pool: pg.Pool,
  logger: Logger,
  kubeConfig: KubeConfig,
): LeaderElector {
  if (config.LEADER_ELECTION === "pg")
    return new PgAdvisoryLockElector({ pool, name: LEADERSHIP_NAME, logger });
  return new LeaseElector({
    kubeConfig,
    namespace: config.POD_NAMESPACE!,
    name: LEADERSHIP_NAME,
    identity: config.POD_NAME!,
    logger,
  });
}

/**
 * Runs the WebhookSubscription controller on the elected replica only (ARCHITECTURE "Operator-
 * style"); the others wait as candidates. stop() ends the controller and releases leadership.
 */
export function startOperator(deps: OperatorDeps): { stop(): Promise<void> } {
  const { config, logger } = deps;
  // The pod's ServiceAccount token and the API server's address (the chart mounts the token for the dispatcher only).
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromCluster();
  const elector = createElector(config, deps.pool, logger, kubeConfig);
  const controller = createWebhookSubscriptionController({
    kubeConfig,
    namespace: config.POD_NAMESPACE!, // required by config when OPERATOR_ENABLED
    port: createSubscriptionPort(deps),
    logger,
    instance: config.POD_NAME!,
  });
  const stop = new AbortController();
  const running = elector
    .run((signal) => controller.run(signal), stop.signal)
    .catch((err: unknown) => {
      if (!stop.signal.aborted)
        logger.error({ err }, "webhook subscription operator stopped unexpectedly");
    });
  return {
    async stop() {
      stop.abort();
      await running;
    },
  };
}
