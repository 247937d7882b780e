/**
 * The whole system as `npm start` runs it (tools/start.ts: every service its own process under the
 * launcher's supervisor, which restarts a process that dies), pointed at PRIVATE PostgreSQL,
 * MariaDB and NATS servers that the fault suite may stop, kill and restart. The machine's shared
 * servers are never touched.
 */
import { appendFileSync } from "node:fs";
import { mkdtemp, readFile, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  spawnServiceProcess,
  startPrivateMariaDb,
  startPrivateNatsServer,
  startPrivatePostgres,
  type PrivateMariaDb,
  type PrivateNatsServer,
  type PrivatePostgres,
  type ServiceProcess,
} from "@svc/testing";
import { ensureLocalSigningKeys } from "../../../services/auth/src/domain/keys/local-keys.ts";
import { childrenOf, freeOffset } from "../../support/stack-host.ts";
import {
  parseReplicas,
  reachableOffset,
  stackPorts,
  stackProcessOf,
  stackWithOffset,
  type StackProcess,
} from "../../../tools/stack.ts";

export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
export const LEGACY_DATABASE = "legacy_fault";
export const NATS_NAMESPACE = "fault";

export interface Backends {
  pg: PrivatePostgres;
  mariadb: PrivateMariaDb;
  nats: PrivateNatsServer;
  /** The integration database on the private PostgreSQL (every service's schema). */
  pgUrl: string;
  /** The legacy database on the private MariaDB. */
  legacyUrl: string;
  cleanup(): Promise<void>;
}

export async function startBackends(): Promise<Backends> {
  const started = await Promise.allSettled([
    startPrivatePostgres(),
    startPrivateMariaDb(),
    startPrivateNatsServer(),
  ]);
  const [pg, mariadb, nats] = started.map((s) =>
    s.status === "fulfilled" ? s.value : undefined,
  ) as [PrivatePostgres?, PrivateMariaDb?, PrivateNatsServer?];
  const cleanup = async () => {
    await Promise.allSettled([pg?.cleanup(), mariadb?.cleanup(), nats?.dispose()]);
  };
  if (!pg || !mariadb || !nats) {
    await cleanup();
    throw (started.find((s) => s.status === "rejected") as PromiseRejectedResult).reason;
  }
  return {
    pg,
    mariadb,
    nats,
    pgUrl: pg.urlFor("integration"),
    legacyUrl: mariadb.urlFor(LEGACY_DATABASE),
    cleanup,
  };
}

/**
 * A port offset whose every port is free, from a range other suites do not use (test/support's
 * private stacks take 11000–22500, the local-stack test 20000).
 */
const freeStackOffset = (replicas: ReadonlyMap<string, number>) =>
  freeOffset(
    Array.from({ length: 16 }, (_, i) => 2_000 + i * 500).filter((offset) =>
      reachableOffset(offset, replicas),
    ),
    (offset) => stackPorts(offset, replicas),
    "the fault stack",
  );

/**
 * Which stack process a pid runs: its working directory is the workspace, its argv the entry, its
 * PORT and INTERNAL_PORT (environment) tell replicas apart.
 */
async function processName(
  pid: number,
  stack: ReadonlyArray<StackProcess>,
): Promise<string | undefined> {
  try {
    const cwd = await readlink(`/proc/${pid}/cwd`);
    const argv = (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0");
    const env = Object.fromEntries(
      (await readFile(`/proc/${pid}/environ`, "utf8"))
        .split("\0")
        .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
    );
    return stackProcessOf(stack, cwd, argv, env)?.name;
  } catch {
    return undefined;
  }
}

export interface FaultStack {
  baseUrl: string;
  processes: ReadonlyArray<StackProcess>;
  demoClient: { clientId: string; clientSecret: string };
  /** The pid of each running stack process, by name. */
  pids(): Promise<Map<string, number>>;
  /** The launcher's lines saying a process exited (it restarts it). */
  exits(): string[];
  /** Log lines at level error or fatal. */
  errorLines(): string[];
  /** The launcher's recent output, secrets removed. */
  output(): string;

  /** Answers 200 on the process's probe: /livez on the internal port, or the gateway's /health. */
  healthy(name: string): Promise<boolean>;
  stop(): Promise<void>;
}

export async function launchStack(
  backends: Backends,
  env: Record<string, string>,
  /** Called with every line of the launcher's output (`<process> <log line>`) as it arrives. */
  onLine?: (line: string, at: number) => void,
): Promise<FaultStack> {
  const dir = await mkdtemp(join(tmpdir(), "fault-stack-"));
  const keysDir = join(dir, "keys");
  await ensureLocalSigningKeys(keysDir);
  const demoFile = join(dir, "demo-client.json");
  const replicas = parseReplicas(env.STACK_REPLICAS);
  const offset = await freeStackOffset(replicas);
  const processes = stackWithOffset(offset, replicas);
  const childEnv: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PG_URL: backends.pgUrl,
    MYSQL_URL: backends.mariadb.url,
    NATS_URL: backends.nats.url,
    LEGACY_DATABASE,
    NATS_NAMESPACE,
    STACK_PORT_OFFSET: String(offset),
    DEMO_CLIENT_FILE: demoFile,
    SIGNING_KEYS_DIR: keysDir,
    ...env,
  };
  delete childEnv.RAW_LOGS;
  const launcher: ServiceProcess = spawnServiceProcess("tools/start.ts", childEnv, { cwd: ROOT });
  const exits: string[] = [];
  const errors: string[] = [];
  let recent: string[] = [];
  let up = false;
  let buffer = "";
  // FAULT_SUITE_LOG=<file>: every line of every process, for a run that needs explaining.
  const logFile = process.env.FAULT_SUITE_LOG;
  const handle = (line: string) => {
    onLine?.(line, Date.now());
    if (logFile)
      appendFileSync(
        logFile,
        `${new Date().toISOString()} ${line.replace(/(client_secret:\s*|-u ')\S+/g, "$1<redacted>")}\n`,
      );
    if (line.includes("Integration service is up")) up = true;
    if (/^\S+\s+exited \(/.test(line)) exits.push(line);
    if (/"level":"?(error|fatal|50|60)/.test(line)) errors.push(line.slice(0, 2_000));
    // The launcher prints the demo client's secret; it must not reach a test report.
    recent.push(line.replace(/(client_secret:\s*|-u ')\S+/g, "$1<redacted>"));
    if (recent.length > 600) recent = recent.slice(-300);
  };
  for (const stream of [launcher.child.stdout, launcher.child.stderr]) {
    stream?.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      lines.forEach(handle);
    });
  }
  const launcherPid = launcher.child.pid ?? 0;
  const killLeftovers = async () => {
    for (const pid of await childrenOf(launcherPid)) process.kill(pid, "SIGKILL");
  };
  const stop = async () => {
    // The launcher stops its processes gracefully; any it could not stop are ended by pid.
    const pids = await childrenOf(launcherPid);
    const exited = await Promise.race([
      launcher.terminate(),
      new Promise<"late">((r) => setTimeout(() => r("late"), 30_000)),
    ]);
    if (exited === "late") await launcher.kill();
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await rm(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 240_000;
  while (!up && Date.now() < deadline && launcher.child.exitCode === null)
    await new Promise((r) => setTimeout(r, 200));
  if (!up) {
    await killLeftovers();
    await stop();
    throw new Error(
      `the stack did not come up (offset ${offset}):\n${recent.slice(-60).join("\n")}`,
    );
  }
  const demo = JSON.parse(await readFile(demoFile, "utf8")) as {
    client_id: string;
    client_secret: string;
  };
  const byName = new Map(processes.map((p) => [p.name, p]));
  return {
    baseUrl: `http://127.0.0.1:${8080 + offset}`,
    processes,
    demoClient: { clientId: demo.client_id, clientSecret: demo.client_secret },
    async pids() {
      const found = new Map<string, number>();
      for (const pid of await childrenOf(launcherPid)) {
        const name = await processName(pid, processes);
        if (name) found.set(name, pid);
      }
      return found;
    },
    exits: () => [...exits],
    errorLines: () => [...errors],
    output: () => recent.join("\n"),
    async healthy(name) {
      const p = byName.get(name);
      if (!p) throw new Error(`no stack process named ${name}`);
      const url =
        p.internalPort === null
          ? `http://127.0.0.1:${p.port}/health`
          : `http://127.0.0.1:${p.internalPort}/livez`;
      try {
        return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok;
      } catch {
        return false;
      }
    },
    stop,
  };
}

/**
 * Runs each clean-up step in order, whatever the ones before did: a failed step is reported under
 * `label` and the rest still run, so no private server outlives a failed test.
 */
export async function cleanUp(
  label: string,
  steps: ReadonlyArray<() => Promise<unknown>>,
): Promise<void> {
  for (const step of steps)
    await step().catch((err: unknown) =>
      console.error(`${label} clean-up: ${(err as Error).message}`),
    );
}
