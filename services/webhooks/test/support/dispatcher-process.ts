import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const ENTRY = fileURLToPath(new URL("../../src/dispatcher-main.ts", import.meta.url));

/** The real dispatcher entry point as a child process on this Node (24), with exactly `env`. */
export function spawnDispatcher(env: Record<string, string>, nodeArgs: string[] = []): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [...nodeArgs, ENTRY], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  return Object.assign(child, { output: () => output });
}
