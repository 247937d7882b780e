import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";

/** How to launch one database server process and tell when it accepts connections. */
export interface ServerLaunch {
  name: string;
  command: string;
  args: string[];
  /** A line of its log (stderr or stdout) that says it is ready. */
  ready: RegExp;
  /** Run as this user (PostgreSQL refuses to run as root). */
  uid?: number;
  gid?: number;
  startTimeoutMs?: number;
}

/**
 * A running server and its worker processes. PostgreSQL's backends each start their own session,
 * so no process group holds them: signals go to the whole process tree (found through /proc).
 */
export interface LaunchedServer {
  pid: number;
  /** The last 20 kB of its log. */
  log(): string;
  /**
   * Sends `signal` to the server process and waits until every process of its group is gone;
   * SIGKILL after `graceMs`.
   */
  stop(signal: NodeJS.Signals, graceMs: number): Promise<void>;
  /**
   * SIGKILL to the server and every process it started (a container killed), then waits until they
   * are gone.
   */
  kill(): Promise<void>;
  /**
   * SIGSTOP / SIGCONT to the whole tree: a server that hangs (connections stay open, nothing
   * answers).
   */
  freeze(): void;
  thaw(): void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every process below `root` (by parent pid, from /proc). */
function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Field 4 is the parent pid; the command name (field 2) may hold spaces, so split after ")".
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // ended while we looked
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parents) {
      if (parent !== pid) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(root);
  return found;
}

function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  }
}

async function allGone(pids: number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(alive)) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

/**
 * Starts the server and resolves once it logged its ready line; rejects with its log if it exits or
 * is slow.
 */
export async function launchServer(spec: ServerLaunch): Promise<LaunchedServer> {
  const child: ChildProcess = spawn(spec.command, spec.args, {
    stdio: ["ignore", "pipe", "pipe"],
    // In the test runner's process group: a Ctrl+C that ends the run ends the server too.
    ...(spec.uid !== undefined && { uid: spec.uid }),
    ...(spec.gid !== undefined && { gid: spec.gid }),
  });
  let log = "";
  let ready = false;
  const exited = once(child, "exit").then(() => undefined);
  const onData = (chunk: Buffer) => {
    // Keep reading for the whole life of the server: a full pipe would block it.
    log = (log + chunk.toString()).slice(-20_000);
    if (!ready && spec.ready.test(log)) ready = true;
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const pid = child.pid;
  if (pid === undefined) {
    await once(child, "error").catch(() => undefined);
    throw new Error(`${spec.name} could not be started (${spec.command})`);
  }
  const killTree = async () => {
    // Stopped first, so it starts no new worker while its tree is listed.
    signal([pid], "SIGSTOP");
    const tree = [pid, ...descendants(pid)];
    signal(tree, "SIGKILL");
    await exited;
    await allGone(tree, 10_000);
  };
  const timeoutMs = spec.startTimeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  while (!ready) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `${spec.name} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${log}`,
      );
    if (Date.now() > deadline) {
      await killTree();
      throw new Error(`${spec.name} not ready after ${timeoutMs} ms:\n${log}`);
    }
    await sleep(25);
  }
  return {
    pid,
    log: () => log,
    async stop(stopSignal, graceMs) {
      const tree = [pid, ...descendants(pid)];
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(stopSignal);
        // A frozen server acts on the signal only once continued.
        signal(tree, "SIGCONT");
      }
      const done = await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)]);
      if (!done || !(await allGone(tree, 5_000))) await killTree();
    },
    kill: killTree,
    freeze: () => {
      // The server first, so it starts no new worker while the others are stopped.
      signal([pid], "SIGSTOP");
      signal(descendants(pid), "SIGSTOP");
    },
    thaw: () => signal([pid, ...descendants(pid)], "SIGCONT"),
  };
}

/** The uid and gid of a local user, from /etc/passwd (no native lookup in Node). */
export function systemUser(passwd: string, name: string): { uid: number; gid: number } | undefined {
  const line = passwd.split("\n").find((l) => l.startsWith(`${name}:`));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}
