/**
 * A whole `npm start` stack (tools/start.ts: every service as its own process behind the gateway)
 * isolated for one test file: its own PostgreSQL database, legacy MySQL database, NATS namespace,
 * signing keys, demo-client file and port range. It resolves once the launcher says the stack is up,
 * which it says once every process answers its readiness probe. `stop()` ends the processes it
 * started and drops everything it created.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createConnection } from "mysql2/promise";
import { connectNats, drainNats, jetstreamManager } from "@svc/messaging";
import {
  createTempPgDatabase,
  fetchJson,
  silentLogger,
  spawnServiceProcess,
  testEnv,
  type ServiceProcess,
  type TempDatabase,
} from "@svc/testing";
import { ensureLocalSigningKeys } from "../../services/auth/src/domain/keys/local-keys.ts";
import { reachableOffset, stackWithOffset, type StackProcess } from "../../tools/stack.ts";
import { childrenOf, freeOffset } from "./stack-host.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface PrivateStack {
  baseUrl: string;
  gatewayPort: number;
  processes: ReadonlyArray<StackProcess>;
  pgUrl: string;
  mysqlUrl: string;
  legacyDatabase: string;
  legacyUrl: string;
  natsUrl: string;
  natsNamespace: string;
  identityPepper: string;
  demoClient: { clientId: string; clientSecret: string };
  /**
   * The supervised service processes (children of the launcher): name is unknown to /proc, so by
   * pid.
   */
  childPids(): Promise<number[]>;
  /** Supervisor lines saying a process exited (a crash: it is restarted). */
  crashes(): string[];
  /** Log lines at level error or fatal (an unexpected error: a 500 is logged as one). */
  errorLines(): string[];
  /** The recent output, with the demo client's secret removed. */
  output(): string;
  stop(): Promise<void>;
}

export interface PrivateStackOptions {
  /** Extra environment for every process. */
  env?: Record<string, string>;
  startTimeoutMs?: number;
}

/**
 * An offset whose every port is free, below Linux's ephemeral range; test/system/local-stack.test.ts
 * uses 20000.
 */
const freeStackOffset = () =>
  freeOffset(
    Array.from({ length: 24 }, (_, i) => 11_000 + i * 500).filter(
      (o) => o !== 20_000 && reachableOffset(o),
    ),
    (offset) =>
      stackWithOffset(offset)
        .flatMap((p) => [p.port, p.internalPort])
        .filter((p): p is number => p !== null),
    "a private stack",
  );

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function dropLegacy(name: string): Promise<void> {
  const c = await createConnection({ uri: testEnv.TEST_MYSQL_URL });
  try {
    await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
  } finally {
    await c.end();
  }
}

async function deleteNamespaceStreams(namespace: string): Promise<void> {
  const nc = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: "private-stack-cleanup",
    logger: silentLogger(),
  });
  try {
    const jsm = await jetstreamManager(nc);
    const doomed: string[] = [];
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(`KV_${namespace}_`) || name.startsWith(`${namespace.toUpperCase()}_`))
        doomed.push(name);
    }
    await Promise.all(doomed.map((name) => jsm.streams.delete(name)));
  } finally {
    await drainNats(nc);
  }
}

export async function startPrivateStack(options: PrivateStackOptions = {}): Promise<PrivateStack> {
  const suffix = randomBytes(4).toString("hex");
  const dir = await mkdtemp(join(tmpdir(), "private-stack-"));
  const keysDir = join(dir, "keys");
  await ensureLocalSigningKeys(keysDir);
  const demoFile = join(dir, "demo-client.json");
  const database: TempDatabase = await createTempPgDatabase("stack");
  const legacyDatabase = `stack_legacy_${suffix}`;
  const natsNamespace = `stack${suffix}`;
  const identityPepper = `private-stack-pepper-${randomBytes(24).toString("hex")}`;
  const offset = await freeStackOffset();
  const processes = stackWithOffset(offset);
  const gatewayPort = 8080 + offset;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PG_URL: database.url,
    MYSQL_URL: testEnv.TEST_MYSQL_URL,
    NATS_URL: testEnv.TEST_NATS_URL,
    LEGACY_DATABASE: legacyDatabase,
    NATS_NAMESPACE: natsNamespace,
    STACK_PORT_OFFSET: String(offset),
    DEMO_CLIENT_FILE: demoFile,
    SIGNING_KEYS_DIR: keysDir,
    IDENTITY_PEPPER: identityPepper,
    LOG_LEVEL: "warn",
    ...options.env,
  };
  delete env.RAW_LOGS;
  const launcher: ServiceProcess = spawnServiceProcess("tools/start.ts", env, { cwd: ROOT });
  const crashes: string[] = [];
  const errors: string[] = [];
  let recent: string[] = [];
  let up = false;
  let buffer = "";
  const onLine = (line: string) => {
    if (line.includes("Integration service is up")) up = true;
    if (/^\S+\s+exited \(/.test(line)) crashes.push(line);
    if (/"level":"(error|fatal)"/.test(line)) errors.push(line.slice(0, 2_000));
    // The launcher prints the demo client's secret; it must not reach a test report.
    recent.push(line.replace(/(client_secret:\s*|-u ')\S+/g, "$1<redacted>"));
    if (recent.length > 400) recent = recent.slice(-200);
  };
  for (const stream of [launcher.child.stdout, launcher.child.stderr]) {
    stream?.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      lines.forEach(onLine);
    });
  }

  const cleanUp = async () => {
    await launcher.terminate().catch(() => undefined);
    await database.drop().catch(() => undefined);
    await dropLegacy(legacyDatabase).catch(() => undefined);
    await deleteNamespaceStreams(natsNamespace).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 120_000);
  while (!up && Date.now() < deadline && launcher.child.exitCode === null)
    await new Promise((r) => setTimeout(r, 200));
  if (!up) {
    const tail = recent.slice(-40).join("\n");
    const pids = launcher.child.pid ? await childrenOf(launcher.child.pid) : [];
    for (const pid of pids) process.kill(pid, "SIGKILL");
    await cleanUp();
    throw new Error(`the private stack did not come up (offset ${offset}):\n${tail}`);
  }
  const demo = JSON.parse(await readFile(demoFile, "utf8")) as {
    client_id: string;
    client_secret: string;
  };
  const launcherPid = launcher.child.pid ?? 0;
  const legacyUrl = new URL(testEnv.TEST_MYSQL_URL);
  legacyUrl.pathname = `/${legacyDatabase}`;

  return {
    baseUrl: `http://127.0.0.1:${gatewayPort}`,
    gatewayPort,
    processes,
    pgUrl: database.url,
    mysqlUrl: testEnv.TEST_MYSQL_URL,
    legacyDatabase,
    legacyUrl: legacyUrl.toString(),
    natsUrl: testEnv.TEST_NATS_URL,
    natsNamespace,
    identityPepper,
    demoClient: { clientId: demo.client_id, clientSecret: demo.client_secret },
    childPids: async () => (await childrenOf(launcherPid)).filter(isAlive),
    crashes: () => [...crashes],
    errorLines: () => [...errors],
    output: () => recent.join("\n"),
    async stop() {
      // The launcher stops its processes gracefully; any it could not stop are ended by pid.
      const pids = await childrenOf(launcherPid);
      const exited = await Promise.race([
        launcher.terminate(),
        new Promise<"late">((r) => setTimeout(() => r("late"), 30_000)),
      ]);
      if (exited === "late") await launcher.kill();
      for (const pid of pids) if (isAlive(pid)) process.kill(pid, "SIGKILL");
      await cleanUp();
    },
  };
}

/**
 * The envelope's `data` of a bearer-token JSON call to the stack's gateway; any answer but a 2xx
 * fails, naming the call and the answer.
 */
export async function stackData(
  stack: PrivateStack,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<any> {
  const res = await fetchJson<{ data: unknown }>(`${stack.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { "content-type": "application/json" }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body.data;
}
