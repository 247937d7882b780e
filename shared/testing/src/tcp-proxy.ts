import { createConnection, createServer, type Server, type Socket } from "node:net";
import { once } from "node:events";
import type { AddressInfo } from "node:net";

/**
 * A TCP proxy in front of a real server, for fault tests: `pause()` keeps every connection open
 * but stops moving bytes (what a frozen or partitioned server looks like), `resume()` moves them
 * again, `cut()` resets every connection, `close()` stops listening.
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #pairs = new Set<[Socket, Socket]>();
  #paused = false;
  port = 0;

  private constructor(target: { host: string; port: number }) {
    this.#server = createServer((client) => {
      const upstream = createConnection(target);
      const pair: [Socket, Socket] = [client, upstream];
      this.#pairs.add(pair);
      client.pipe(upstream);
      upstream.pipe(client);
      if (this.#paused) this.#pausePair(pair);
      const drop = () => {
        this.#pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on("error", drop).on("close", drop);
      upstream.on("error", drop).on("close", drop);
    });
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    proxy.#server.listen(0, "127.0.0.1");
    await once(proxy.#server, "listening");
    proxy.port = (proxy.#server.address() as AddressInfo).port;
    return proxy;
  }

  #pausePair([a, b]: [Socket, Socket]) {
    a.unpipe(b);
    b.unpipe(a);
    a.pause();
    b.pause();
  }

  pause(): void {
    this.#paused = true;
    for (const pair of this.#pairs) this.#pausePair(pair);
  }

  resume(): void {
    this.#paused = false;
    for (const [a, b] of this.#pairs) {
      a.pipe(b);
      b.pipe(a);
    }
  }

  cut(): void {
    for (const [a, b] of this.#pairs) {
      a.resetAndDestroy();
      b.destroy();
    }
    this.#pairs.clear();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** A port on loopback where nothing listens (bound, read, released). */
export async function unusedPort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
