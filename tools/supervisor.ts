import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { NODE_FLAGS, RUNTIME_ENV } from "@svc/runtime";
import { entryArgs } from "@svc/manifest";
import type { StackProcess } from "./stack.ts";

export interface SupervisorOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  /** Sources with `node --watch` (restarts on edits), or the built bundles. */
  watch: boolean;
  /** Called with a process's name and a line of its output. */
  onLine: (name: string, line: string) => void;
  onGiveUp: (name: string) => void;
}

/** Restarts a crashed process with backoff; gives up after repeated crashes within a minute. */
export class Supervisor {
  readonly #children = new Map<string, ChildProcess>();
  readonly #crashes = new Map<string, number[]>();
  #stopping = false;
  readonly #options: SupervisorOptions;

  constructor(options: SupervisorOptions) {
    this.#options = options;
  }

  start(proc: StackProcess): void {
    const cwd = join(this.#options.root, proc.cwd);
    const watch = this.#options.watch;
    const args = [
      ...NODE_FLAGS,
      ...(watch ? ["--watch"] : []),
      ...entryArgs(proc.entry, { cwd, from: watch ? "source" : "bundle" }),
    ];
    const env: NodeJS.ProcessEnv = { ...RUNTIME_ENV, ...this.#options.env };
    if (proc.port !== null) env.PORT = String(proc.port);
    if (proc.internalPort !== null) env.INTERNAL_PORT = String(proc.internalPort);
    const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    this.#children.set(proc.name, child);
    for (const stream of [child.stdout, child.stderr]) {
      let buffer = "";
      stream.setEncoding("utf8").on("data", (chunk: string) => {
        buffer += chunk;
        const lines = buffer.split("\n");
        buffer = lines.pop() ?? "";
        for (const line of lines) if (line) this.#options.onLine(proc.name, line);
      });
    }
    child.on("exit", (code, signal) => {
      this.#children.delete(proc.name);
      if (this.#stopping) return;
      const now = Date.now();
      const recent = [...(this.#crashes.get(proc.name) ?? []), now].filter((t) => now - t < 60_000);
      this.#crashes.set(proc.name, recent);
      this.#options.onLine(
        proc.name,
        `exited (${signal ?? code}); ${recent.length >= 5 ? "giving up" : "restarting"}`,
      );
      if (recent.length >= 5) this.#options.onGiveUp(proc.name);
      else setTimeout(() => this.start(proc), 500 * recent.length);
    });
  }

  /** SIGTERM to every process (they drain), SIGKILL to any still running after the grace period. */
  async stop(graceMs = 15_000): Promise<void> {
    this.#stopping = true;
    const exits = [...this.#children.values()].map(
      (child) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
          child.once("exit", () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill("SIGTERM");
        }),
    );
    await Promise.all(exits);
  }
}
