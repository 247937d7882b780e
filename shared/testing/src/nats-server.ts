import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectNats, drainNats, jetstreamManager } from "@svc/messaging";
import { unusedPort } from "./tcp-proxy.ts";

const NATS_SERVER = "/usr/sbin/nats-server";

/**
 * A private nats-server with JetStream and file storage, killable and restartable in place (fault
 * tests).
 */
export type PrivateNatsServer = {
  url: string;
  /** SIGKILL: no shutdown, no final flush; waits until the process is gone. */
  kill(): Promise<void>;
  /** Starts again on the same port and store directory. */
  restart(): Promise<void>;
  /** Stops it and removes its store. */
  dispose(): Promise<void>;
  /** The running server's process id (a restart runs a new process). */
  pid(): number;
};

export interface PrivateNatsOptions {
  /** More nats-server configuration (authorization, tls, ...), appended to the generated file. */
  config?: string;
}

export async function startPrivateNatsServer(
  options: PrivateNatsOptions = {},
): Promise<PrivateNatsServer> {
  const port = await unusedPort();
  return startNode(port, options.config ?? "", "nats");
}

/** A JetStream cluster of `size` nats-servers on loopback, each killable and restartable. */
export type PrivateNatsCluster = {
  /** Every node's client URL. */
  urls: string[];
  nodes: PrivateNatsServer[];
  dispose(): Promise<void>;
};

export async function startPrivateNatsCluster(size = 3): Promise<PrivateNatsCluster> {
  const ports = await distinctPorts(size * 2);
  const clientPorts = ports.slice(0, size);
  const routePorts = ports.slice(size);
  const routes = routePorts.map((p) => `nats-route://127.0.0.1:${p}`).join(", ");
  const nodes: PrivateNatsServer[] = [];
  try {
    // Started together: a node waits for its routes before JetStream elects a meta leader.
    nodes.push(
      ...(await Promise.all(
        clientPorts.map((port, i) =>
          startNode(
            port,
            `cluster {\n  name: test\n  listen: 127.0.0.1:${routePorts[i]}\n  routes: [${routes}]\n}`,
            `n${i + 1}`,
          ),
        ),
      )),
    );
  } catch (err) {
    await Promise.allSettled(nodes.map((n) => n.dispose()));
    throw err;
  }
  await jetStreamReady(nodes.map((n) => n.url));
  return {
    urls: nodes.map((n) => n.url),
    nodes,
    dispose: async () => void (await Promise.allSettled(nodes.map((n) => n.dispose()))),
  };
}

/** Waits until the cluster has elected its JetStream meta leader and answers API requests. */
async function jetStreamReady(urls: string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  const nc = await connectNats({
    servers: urls,
    name: "cluster-readiness",
    logger: { info: () => {}, warn: () => {}, error: () => {} },
  });
  try {
    for (;;) {
      try {
        await (await jetstreamManager(nc, { timeout: 1_000 })).getAccountInfo();
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  } finally {
    await drainNats(nc, { timeoutMs: 1_000 });
  }
}

async function distinctPorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await unusedPort());
  return [...ports];
}

async function startNode(
  port: number,
  extra: string,
  serverName: string,
): Promise<PrivateNatsServer> {
  const storeDir = mkdtempSync(join(tmpdir(), "nats-js-"));
  const configFile = join(storeDir, "nats.conf");
  writeFileSync(
    configFile,
    `server_name: ${serverName}\nlisten: 127.0.0.1:${port}\njetstream {\n  store_dir: "${join(storeDir, "js")}"\n}\n${extra}\n`,
  );
  let child = await launch(configFile);
  return {
    url: `nats://127.0.0.1:${port}`,
    kill: () => killHard(child),
    async restart() {
      child = await launch(configFile);
    },
    async dispose() {
      await killHard(child);
      rmSync(storeDir, { recursive: true, force: true });
    },
    pid: () => child.pid ?? 0,
  };
}

function launch(configFile: string): Promise<ChildProcess> {
  const child = spawn(NATS_SERVER, ["-c", configFile], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let log = "";
    let starting = true;
    const timer = setTimeout(
      () => fail(new Error(`nats-server not ready after 10 s:\n${log}`)),
      10_000,
    );
    const onExit = (code: number | null) =>
      fail(new Error(`nats-server exited (${code}):\n${log}`));
    const fail = (err: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(err);
    };
    child.once("error", fail);
    child.once("exit", onExit);
    child.stderr?.on("data", (chunk: Buffer) => {
      // Keep reading after the server is ready (a full pipe would block it), but stop collecting.
      if (!starting) return;
      log += chunk.toString();
      if (log.includes("Server is ready")) {
        starting = false;
        clearTimeout(timer);
        child.off("exit", onExit);
        resolve(child);
      }
    });
  });
}

function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}
