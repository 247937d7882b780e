import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unusedPort } from "@svc/testing";

const NATS_SERVER = "/usr/sbin/nats-server";

/** A nats-server of the test's own (JetStream, file store), killable and restartable in place. */
export type PrivateNats = {
  url: string;
  kill(): Promise<void>;
  restart(): Promise<void>;
  dispose(): Promise<void>;
};

export async function startPrivateNats(): Promise<PrivateNats> {
  const port = await unusedPort();
  const store = mkdtempSync(join(tmpdir(), "webhooks-nats-"));
  let child = await launch(port, store);
  return {
    url: `nats://127.0.0.1:${port}`,
    kill: () => killHard(child),
    async restart() {
      child = await launch(port, store);
    },
    async dispose() {
      await killHard(child);
      rmSync(store, { recursive: true, force: true });
    },
  };
}

function launch(port: number, store: string): Promise<ChildProcess> {
  const child = spawn(NATS_SERVER, ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", store], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let log = "";
    let ready = false;
    const timer = setTimeout(
      () => reject(new Error(`nats-server not ready after 10 s:\n${log}`)),
      10_000,
    );
    child.once("exit", (code) => {
      if (!ready) reject(new Error(`nats-server exited (${code}):\n${log}`));
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      // Keep draining stderr after startup so a full pipe never blocks the server.
      if (ready) return;
      log += chunk.toString();
      if (log.includes("Server is ready")) {
        ready = true;
        clearTimeout(timer);
        resolve(child);
      }
    });
  });
}

export function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}
