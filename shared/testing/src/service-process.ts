import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";

export interface ServiceProcess {
  child: ChildProcess;
  /** The last 50 kB of stdout and stderr together. */
  output(): string;
  /** The exit code once the process ends by itself. */
  exited(): Promise<number | null>;
  /** SIGTERM, then the exit code: how Kubernetes stops a pod. */
  terminate(): Promise<number | null>;
  /** SIGKILL if still running (test clean-up). */
  kill(): Promise<void>;
}

/** Runs a process entry point (a service's main.ts) on this Node with the given environment. */
export function spawnServiceProcess(
  entry: string,
  env: Record<string, string>,
  options: { cwd?: string } = {},
): ServiceProcess {
  const child = spawn(process.execPath, [entry], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let output = "";
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-50_000));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = once(child, "exit") as Promise<[number | null]>;
  return {
    child,
    output: () => output,
    exited: async () => (await exited)[0],
    terminate: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      return (await exited)[0];
    },
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGKILL");
      await exited;
    },
  };
}
