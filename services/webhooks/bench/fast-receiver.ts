import { createServer } from "node:https";
import type { AddressInfo } from "node:net";

/**
 * A subscriber endpoint that costs as little as possible: keep-alive HTTPS on 127.0.0.1, answers
 * 204 after reading the body, counts POSTs and distinct delivery ids.
 */
export type FastReceiver = {
  url(path: string): string;
  /** POSTs received (duplicates included). */
  received(): number;
  /** Distinct X-SVC-Delivery-Id values seen. */
  distinct(): number;
  firstAt(): number | undefined;
  lastAt(): number | undefined;
  close(): Promise<void>;
};

export async function startFastReceiver(tls: { key: string; cert: string }): Promise<FastReceiver> {
  let received = 0;
  let firstAt: number | undefined;
  let lastAt: number | undefined;
  const ids = new Set<string>();
  const server = createServer({ key: tls.key, cert: tls.cert, keepAlive: true }, (req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      const now = Date.now();
      firstAt ??= now;
      lastAt = now;
      ids.add(String(req.headers["x-svc-delivery-id"] ?? ""));
      res.writeHead(204).end();
    });
  });
  server.on("secureConnection", (socket) => socket.on("error", () => {}));
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `https://127.0.0.1:${port}${path}`,
    received: () => received,
    distinct: () => ids.size,
    firstAt: () => firstAt,
    lastAt: () => lastAt,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
