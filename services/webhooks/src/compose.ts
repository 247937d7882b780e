import type pg from "pg";
import type { Meter } from "@opentelemetry/api";
import { createDrizzle } from "@svc/db";
import type { ProcessTask } from "@svc/host";
import type { Logger } from "@svc/logging";
import { jetstream, names, type NatsConnection } from "@svc/messaging";
import { readExtraCa, SERVICE_VERSION, type Config, type DispatcherConfig } from "./config.ts";
import { systemClock, type Clock } from "./domain/model.ts";
import type { DeliveryQueue, WebhookHttpClient } from "./domain/ports.ts";
import { deliveryUserAgent } from "./domain/signing.ts";
import { SubscriptionService } from "./domain/subscription-service.ts";
import { createNatsDeliveryQueue } from "./messaging/nats-delivery-queue.ts";
import { createGuardedClient } from "./outbound/guarded-client.ts";
import { systemResolver, type HostResolver } from "./outbound/resolver.ts";
import { createUrlGuard } from "./outbound/url-guard.ts";
import { PgDeliveryStore } from "./store/pg-delivery-store.ts";
import { PgSubscriptionStore } from "./store/pg-subscription-store.ts";
import * as schema from "./store/schema.ts";
import { createSecretBox } from "./store/secret-box.ts";
import { startDispatcher } from "./workers/dispatcher/start-dispatcher.ts";
import { dispatcherLeaderTasks, LEADERSHIP_NAME } from "./workers/start-leader-group.ts";
import { PgK8sLinks } from "./store/pg-k8s-links.ts";
import { ServiceSubscriptionPort } from "./workers/operator/subscription-port.ts";

/** The settings the domain module reads; the API's and the dispatcher's configs both have them. */
export type SubscriptionServiceConfig = Pick<
  Config,
  | "ENVIRONMENT"
  | "PUBLIC_BASE_URL"
  | "WEBHOOK_DNS_TIMEOUT_MS"
  | "WEBHOOK_ALLOW_LOOPBACK"
  | "WEBHOOK_SECRET_KEY"
  | "WEBHOOK_SECRET_ROTATION_OVERLAP_MS"
  | "WEBHOOK_RETENTION_DAYS"
>;

/** What the domain module is built from: the API's adapters, or the dispatcher's for its operator. */
export interface SubscriptionServiceDeps {
  config: SubscriptionServiceConfig;
  logger: Logger;
  pool: pg.Pool;
  /** Resolves subscription hostnames for the URL guard (tests inject a fake). */
  resolver: HostResolver;
  /** The deliveries work stream (ping and manual redelivery). */
  queue: DeliveryQueue;
  clock: Clock;
}

/** The domain module over its stores, for the API and the dispatcher's operator alike. */
export function createSubscriptionService(deps: SubscriptionServiceDeps): SubscriptionService {
  const db = createDrizzle(deps.pool, schema);
  const { config } = deps;
  return new SubscriptionService({
    subscriptions: new PgSubscriptionStore(db),
    deliveries: new PgDeliveryStore(db),
    queue: deps.queue,
    guard: createUrlGuard({
      resolver: deps.resolver,
      dnsTimeoutMs: config.WEBHOOK_DNS_TIMEOUT_MS,
      allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK,
    }),
    secretBox: createSecretBox(config.WEBHOOK_SECRET_KEY.base64),
    clock: deps.clock,
    logger: deps.logger,
    environment: config.ENVIRONMENT,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    rotationOverlapMs: config.WEBHOOK_SECRET_ROTATION_OVERLAP_MS,
    retentionMs: config.WEBHOOK_RETENTION_DAYS * 86_400_000,
  });
}

/** The operator's port over the domain module, on the dispatcher's pool. */
export function createSubscriptionPort(deps: SubscriptionServiceDeps): ServiceSubscriptionPort {
  const service = createSubscriptionService(deps);
  return new ServiceSubscriptionPort(service, new PgK8sLinks(createDrizzle(deps.pool, schema)));
}

/** The one outbound client, guarded per the configuration (loopback: the local stack; extra CA: tests). */
export function createDeliveryClient(
  config: DispatcherConfig,
  resolver: HostResolver,
): WebhookHttpClient {
  const guard = createUrlGuard({
    resolver,
    dnsTimeoutMs: config.WEBHOOK_DNS_TIMEOUT_MS,
    allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK,
  });
  return createGuardedClient({
    guard,
    timeoutMs: config.WEBHOOK_ATTEMPT_TIMEOUT_MS,
    readCapBytes: config.WEBHOOK_RESPONSE_READ_CAP_BYTES,
    extraCa: readExtraCa(config),
    userAgent: deliveryUserAgent(SERVICE_VERSION),
  });
}

interface WebhooksHost<C> {
  config: C;
  logger: Logger;
  meter: Meter;
  pool: pg.Pool;
  nc: NatsConnection;
  onShutdown(name: string, stop: () => Promise<void>): void;
}

/** Logged at start by both processes while the local stack accepts loopback subscriber URLs. */
export const LOOPBACK_WARNING =
  "WEBHOOK_ALLOW_LOOPBACK is true: subscriber URLs on this machine's loopback interface (http and https) are accepted; for the local stack only";

function warnDevelopmentSettings(
  config: Pick<Config, "WEBHOOK_ALLOW_LOOPBACK" | "WEBHOOK_SECRET_KEY">,
  logger: Logger,
  secretKeyMessage: string,
): void {
  if (config.WEBHOOK_SECRET_KEY.isDevelopmentKey) logger.warn({}, secretKeyMessage);
  if (config.WEBHOOK_ALLOW_LOOPBACK) logger.warn({}, LOOPBACK_WARNING);
}

/** The API's: the resolver, the deliveries work stream (ping and manual redelivery), the clock. */
export function webhooksAdapters({ config, logger, nc }: WebhooksHost<Config>) {
  warnDevelopmentSettings(
    config,
    logger,
    "WEBHOOK_SECRET_KEY is not set: webhook secrets are sealed with the public development key",
  );
  return {
    resolver: systemResolver(),
    queue: createNatsDeliveryQueue(jetstream(nc), names(config.NATS_NAMESPACE)),
    clock: systemClock,
  };
}

/** The dispatcher's: the outbound client (closed after the dispatcher stops) and the clock. */
export function dispatcherAdapters(host: WebhooksHost<DispatcherConfig>) {
  warnDevelopmentSettings(
    host.config,
    host.logger,
    "WEBHOOK_SECRET_KEY is not set: webhook secrets are opened with the public development key",
  );
  const client = createDeliveryClient(host.config, systemResolver());
  host.onShutdown("outbound http", () => client.close());
  return { client, clock: systemClock };
}

/**
 * The dispatcher (fan-out, delivery worker, requeue sweep) in every replica; under its one
 * election the retention job, the auto-disable check and, when enabled, the WebhookSubscription
 * controller. The operator is imported only then: the Kubernetes client is ~20 MB of heap a
 * dispatcher without it never uses.
 */
export async function dispatcherTasks(
  host: WebhooksHost<DispatcherConfig>,
  { client, clock }: ReturnType<typeof dispatcherAdapters>,
): Promise<ProcessTask[]> {
  const { config, pool, nc, logger, meter } = host;
  const leaderOnly = dispatcherLeaderTasks({ config, pool, clock, logger, meter });
  if (config.OPERATOR_ENABLED) {
    const { operatorTask } = await import("./workers/operator/start-operator.ts");
    const queue = createNatsDeliveryQueue(jetstream(nc), names(config.NATS_NAMESPACE));
    const port = createSubscriptionPort({
      config,
      pool,
      queue,
      resolver: systemResolver(),
      clock,
      logger,
    });
    leaderOnly.push(operatorTask({ config, port, logger, meter, leadership: LEADERSHIP_NAME }));
  }
  return [
    {
      name: "dispatcher",
      start: () => startDispatcher({ config, nc, pool, client, clock, logger, meter }),
    },
    ...leaderOnly.map((task) => ({ ...task, leaderOnly: true as const })),
  ];
}
