import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { RequestListener } from "node:http";
import { createServer } from "node:http";
import { PROTOCOL_SERVER_OPTIONS, withProtocolErrors } from "./protocol-errors.ts";

export interface RunningServer {
  server: Server;
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to graceMs), then cuts what is left. */
  close(graceMs?: number): Promise<void>;
}

/** Listens on host:port (0 = any free port) and returns the bound port. */
export async function listen(
  handler: RequestListener,
  port: number,
  host = "0.0.0.0",
): Promise<RunningServer> {
  const server = createServer(PROTOCOL_SERVER_OPTIONS);
  server.on("request", withProtocolErrors(server, handler));
  // Keep-alive must outlive a typical load balancer idle timeout, headers must not hang forever.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
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
