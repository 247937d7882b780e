/**
 * What the private stacks (private-stack.ts) and the fault stack (test/fault/support) share: a
 * free port range, and the launcher's children read from /proc.
 */
import { readdir, readFile } from "node:fs/promises";
import { createServer } from "node:net";

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "0.0.0.0", () => server.close(() => resolve(true)));
  });
}

/**
 * One of `candidates` (port offsets, tried in random order) whose every port (`portsOf`) is free.
 * Callers keep every port below Linux's ephemeral range (32768), so no outgoing connection holds
 * one.
 */
export async function freeOffset(
  candidates: number[],
  portsOf: (offset: number) => number[],
  what: string,
): Promise<number> {
  for (const offset of [...candidates].sort(() => Math.random() - 0.5)) {
    if ((await Promise.all(portsOf(offset).map(portFree))).every(Boolean)) return offset;
  }
  throw new Error(`no free port range for ${what}`);
}

/** The pids whose parent is `pid`, in order (from /proc). */
export async function childrenOf(pid: number): Promise<number[]> {
  const out: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, "utf8");
      // Field 4 is the parent pid; the command name (field 2) may hold spaces, so split after ")".
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid)
        out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out.sort((a, b) => a - b);
}
