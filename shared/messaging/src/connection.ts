import { connect } from "@nats-io/transport-node";
import type { Authenticator, NatsConnection, Status, TlsOptions } from "@nats-io/transport-node";
import type { Logger } from "@svc/logging";

export type ConnectNatsOptions = {
  servers: string | string[];
  /** Shown in the server's connection list (`/connz`); use the service and role. */
  name: string;
  logger: Logger;
  /** Bound on the first connection: a wrong address fails startup instead of hanging it. */
  connectTimeoutMs?: number;
  /** Pause between reconnect attempts; tests shorten it to make restarts quick. */
  reconnectTimeWaitMs?: number;
  /** Credentials and TLS, from `natsConnectSettings(config)`. */
  authenticator?: Authenticator;
  tls?: TlsOptions;
  /**
   * Default true: a request's error (a publish ack timing out) carries the stack of its caller.
   * Capturing that stack costs every request, met or not; a hot publisher may turn it off.
   */
  asyncTraces?: boolean;
};

/**
 * Connects once (failing after `connectTimeoutMs`), then reconnects forever: a NATS outage must
 * pause messaging, not kill every process. Status changes are logged until the connection closes.
 */
export async function connectNats(options: ConnectNatsOptions): Promise<NatsConnection> {
  const { servers, name, logger } = options;
  const nc = await connect({
    servers,
    name,
    timeout: options.connectTimeoutMs ?? 5_000,
    maxReconnectAttempts: -1,
    reconnectTimeWait: options.reconnectTimeWaitMs ?? 2_000,
    // Retrying the very first connect forever would hide a misconfigured address at startup.
    waitOnFirstConnect: false,
    ...(options.authenticator && { authenticator: options.authenticator }),
    ...(options.tls && { tls: options.tls }),
    ...(options.asyncTraces === false && { noAsyncTraces: true }),
  });
  logger.info({ server: nc.getServer(), name }, "nats connected");
  void logStatus(nc, logger, name);
  return nc;
}

async function logStatus(nc: NatsConnection, logger: Logger, name: string): Promise<void> {
  for await (const status of nc.status()) logOne(status, logger, name);
}

function logOne(status: Status, logger: Logger, name: string): void {
  switch (status.type) {
    case "disconnect":
      return logger.warn({ name, server: status.server }, "nats disconnected; reconnecting");
    case "reconnect":
      return logger.info({ name, server: status.server }, "nats reconnected");
    case "ldm":
      return logger.warn({ name, server: status.server }, "nats server entering lame duck mode");
    case "error":
      return logger.error({ name, err: status.error }, "nats async error");
    case "slowConsumer":
      return logger.warn(
        { name, subject: status.sub.getSubject(), pending: status.pending },
        "nats slow consumer",
      );
    case "staleConnection":
      return logger.warn({ name }, "nats connection stale");
    case "close":
      return logger.info({ name }, "nats connection closed");
    default:
      // "reconnecting" fires on every attempt and "ping" on every keep-alive: too noisy to log.
      return;
  }
}

/**
 * Graceful shutdown: drain flushes pending publishes and acks and lets subscriptions finish what
 * they already received. Bounded, because a drain started while the server is unreachable would
 * wait for a reconnect that may never come; after `timeoutMs` the connection is closed instead.
 * Stop consumers first (their `stop()`), then drain.
 */
export async function drainNats(
  nc: NatsConnection,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  if (nc.isClosed()) return;
  // drain() also rejects ("connection disconnected") when the server goes away mid-drain, and the
  // client would then go on reconnecting: every way out of the wait ends in close().
  const draining = nc.isDraining() ? nc.closed() : nc.drain().catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<void>(
    (resolve) => (timer = setTimeout(resolve, options.timeoutMs ?? 10_000)),
  );
  await Promise.race([draining, timedOut]);
  clearTimeout(timer);
  if (!nc.isClosed()) await nc.close();
  await nc.closed();
}
