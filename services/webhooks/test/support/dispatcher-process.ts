import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { entryArgs, type RunFrom } from "@svc/manifest";
import { NODE_FLAGS, RUNTIME_ENV } from "@svc/runtime";

const ENTRY = fileURLToPath(new URL("../../src/dispatcher-main.ts", import.meta.url));

/**
 * The real dispatcher entry point as a child process on this Node (24), with exactly `env`,
 * started as deployed (the production node flags, allocator settings and its instrument.ts
 * preload), plus `nodeArgs`; from the sources (tests), or from the built bundles (benchmarks: what
 * production runs; build first).
 */
export function spawnDispatcher(
  env: Record<string, string>,
  nodeArgs: string[] = [],
  from: RunFrom = "source",
): ChildProcess & { output: () => string } {
  const child = spawn(
    process.execPath,
    [...NODE_FLAGS, ...nodeArgs, ...entryArgs(ENTRY, { from })],
    { env: { ...RUNTIME_ENV, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  return Object.assign(child, { output: () => output });
}
