import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { RequestListener } from "node:http";
import { createServer } from "node:http";
import { httpServerEnvShape, parseEnv, z } from "@svc/config";
import { PROTOCOL_SERVER_OPTIONS, withProtocolErrors } from "./protocol-errors.ts";

export interface RunningServer {
  server: Server;
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to graceMs), then cuts what is left. */
  close(graceMs?: number): Promise<void>;
}

/** How long a client may take to send a request, and how many connections a listener holds. */
export interface HttpLimits {
  /** From the connection (or the previous response) to the end of the request headers. */
  headersTimeoutMs: number;
  /** From the start of a request to the end of its body. */
  requestTimeoutMs: number;
  /** Connections beyond this are closed as soon as they are accepted. */
  maxConnections: number;
}

/** The limits a process configured (`httpServerEnvShape` of @svc/config). */
export function httpLimits(config: {
  readonly HTTP_HEADERS_TIMEOUT_MS: number;
  readonly HTTP_REQUEST_TIMEOUT_MS: number;
  readonly HTTP_MAX_CONNECTIONS: number;
}): HttpLimits {
  return {
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    maxConnections: config.HTTP_MAX_CONNECTIONS,
  };
}

/** The configuration defaults, for listeners a test or tool starts without a config. */
export const DEFAULT_HTTP_LIMITS: HttpLimits = httpLimits(
  parseEnv(z.object(httpServerEnvShape), {}),
);

/**
 * How often Node checks the two timeouts (its default, 30 s, lets a slow client stay up to 30 s
 * past them): a cut comes at most this late.
 */
const TIMEOUT_CHECK_MS = 500;

/** Listens on host:port (0 = any free port) and returns the bound port. */
export async function listen(
  handler: RequestListener,
  port: number,
  host = "0.0.0.0",
  limits: HttpLimits = DEFAULT_HTTP_LIMITS,
): Promise<RunningServer> {
  const server = createServer({
    ...PROTOCOL_SERVER_OPTIONS,
    // Node requires headers ≤ request; the request timeout is the stronger promise.
    headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    // Keep-alive must outlive a typical load balancer idle timeout (an idle connection is not
    // subject to the two timeouts above).
    keepAliveTimeout: 65_000,
  });
  server.maxConnections = limits.maxConnections;
  server.on("request", withProtocolErrors(server, handler));
  server.listen(port, host);
  await once(server, "listening");
  const bound = (server.address() as AddressInfo).port;
  return {
    server,
    port: bound,
    close: async (graceMs = 10_000) => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(timer);
    },
  };
}
