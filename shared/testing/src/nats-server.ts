import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
};

export async function startPrivateNatsServer(): Promise<PrivateNatsServer> {
  const port = await unusedPort();
  const storeDir = mkdtempSync(join(tmpdir(), "nats-js-"));
  let child = await launch(port, storeDir);
  return {
    url: `nats://127.0.0.1:${port}`,
    kill: () => killHard(child),
    async restart() {
      child = await launch(port, storeDir);
    },
    async dispose() {
      await killHard(child);
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

function launch(port: number, storeDir: string): Promise<ChildProcess> {
  const child = spawn(
    NATS_SERVER,
    ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", storeDir],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  return new Promise((resolve, reject) => {
    let log = "";
    const timer = setTimeout(
      () => fail(new Error(`nats-server not ready after 10 s:\n${log}`)),
      10_000,
    );
    const fail = (err: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(err);
    };
    child.once("error", fail);
    child.once("exit", (code) => fail(new Error(`nats-server exited (${code}):\n${log}`)));
    child.stderr?.on("data", (chunk: Buffer) => {
      // Keep reading after the server is ready (a full pipe would block it), but stop collecting.
      if (child.listenerCount("exit") === 0) return;
      log += chunk.toString();
      if (log.includes("Server is ready")) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
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
