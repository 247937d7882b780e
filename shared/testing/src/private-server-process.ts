import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unusedPort } from "./tcp-proxy.ts";
import { sleep } from "./wait.ts";

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

/**
 * A database server of a test's own (fault tests): its own data directory and port, so a test
 * may stop, kill and restart it without touching the machine's shared server.
 */
export interface PrivateServer {
  port: number;
  /** The server's URL (with its default database, if it has one). */
  url: string;
  /** The URL of a database on this server. */
  urlFor(database: string): string;
  dataDir: string;
  running(): boolean;
  /**
   * Starts it (again) on the same port and data directory; resolves once it accepts connections.
   */
  start(): Promise<void>;
  /** Normal shutdown (the server's own stop signal); SIGKILL if it takes too long. */
  stop(): Promise<void>;
  /** SIGKILL to the server and its workers; the next start runs crash recovery. */
  kill(): Promise<void>;
  /**
   * SIGSTOP to the server's processes: it hangs (connections stay open, nothing answers) until
   * thaw().
   */
  freeze(): void;
  thaw(): void;
  /** stop() if running, then start(). */
  restart(): Promise<void>;
  /** Stops it and removes its data directory. */
  cleanup(): Promise<void>;
}

/** Where a private server keeps its files: `dir` (temporary, removed by cleanup), `dataDir` inside. */
export interface ServerPaths {
  dir: string;
  dataDir: string;
}

/** One kind of private server: how to create its data directory, launch it and stop it. */
export interface PrivateServerSpec {
  /** Names the temporary directory and the errors ("private MariaDB"). */
  name: string;
  /** Creates the data directory before the first start. */
  initialize(paths: ServerPaths): Promise<void>;
  /** The server process on `port`. */
  launch(paths: ServerPaths & { port: number }): Omit<ServerLaunch, "name">;
  /** The signal of a normal shutdown, and how long it may take before SIGKILL. */
  stopSignal: NodeJS.Signals;
  stopGraceMs: number;
  /** `scheme://user@127.0.0.1:<port>`: the URLs add a database to it. */
  origin(port: number): string;
  /** The database `url` names; none by default. */
  defaultDatabase?: string;
}

/** Initializes a private server in a new temporary directory and starts it. */
export async function startPrivateServer(spec: PrivateServerSpec): Promise<PrivateServer> {
  const prefix = spec.name.toLowerCase().replace(/\W+/g, "-");
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const paths = { dir, dataDir: join(dir, "data") };
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  await spec.initialize(paths).catch((err: unknown) => {
    removeDir();
    throw err;
  });
  const port = await unusedPort();
  const origin = spec.origin(port);
  const urlFor = (database: string) => `${origin}/${encodeURIComponent(database)}`;
  let server: LaunchedServer | undefined;
  const handle: PrivateServer = {
    port,
    url: spec.defaultDatabase === undefined ? origin : urlFor(spec.defaultDatabase),
    urlFor,
    dataDir: paths.dataDir,
    running: () => server !== undefined,
    async start() {
      if (server) return;
      server = await launchServer({ name: spec.name, ...spec.launch({ ...paths, port }) });
    },
    async stop() {
      await server?.stop(spec.stopSignal, spec.stopGraceMs);
      server = undefined;
    },
    async kill() {
      await server?.kill();
      server = undefined;
    },
    freeze: () => {
      if (!server) throw new Error("not running");
      server.freeze();
    },
    thaw: () => server?.thaw(),
    async restart() {
      await handle.stop();
      await handle.start();
    },
    async cleanup() {
      await handle.kill();
      removeDir();
    },
  };
  try {
    await handle.start();
  } catch (err) {
    removeDir();
    throw err;
  }
  return handle;
}
