// Idle memory of every service process (the target: each stays under 120 MB RSS idle). Starts the
// whole local stack exactly as `npm start` does (tools/start.ts: every service as its own process,
// migrations on start, the sandbox data set, the demo client), on shifted ports with a private
// PostgreSQL database, legacy database and NATS namespace; warms every service up with a few
// hundred requests through the gateway; lets it settle; then reads each process's RSS from /proc.
//
//   npm exec -c 'node tools/idle-memory-bench.ts' [-- --settle 15]
import { createServer } from "node:net";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createConnection } from "mysql2/promise";
import { connectNats, drainNats, jetstreamManager } from "@svc/messaging";
import { memoryRows, processMemory, recordBenchRows, settledRss } from "@svc/bench";
import { createTempPgDatabase, silentLogger, spawnServiceProcess, testEnv } from "@svc/testing";
import { STACK, stackProcessOf } from "./stack.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const { values: args } = parseArgs({
  options: {
    settle: { type: "string", default: "15" },
    requests: { type: "string", default: "200" },
    "node-options": { type: "string" },
  },
});
const SETTLE_S = Number(args.settle);
const REQUESTS = Number(args.requests);
const out = (line = "") => process.stdout.write(`${line}\n`);

async function portFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A STACK_PORT_OFFSET at which every port of the stack is free. */
async function freeOffset(): Promise<number> {
  const ports = STACK.flatMap((p) => [p.port, p.internalPort]).filter(
    (p): p is number => p !== null,
  );
  for (let attempt = 0; attempt < 50; attempt++) {
    const offset = 21_000 + Math.floor(Math.random() * 150) * 100;
    let free = true;
    for (const port of ports) if (!(await portFree(port + offset))) free = false;
    if (free) return offset;
  }
  throw new Error("no free port range for the stack");
}

/** The processes tools/start.ts runs, by stack name, found among its children in /proc. */
function stackPids(launcherPid: number): Map<string, number> {
  const children = readdirSync(`/proc/${launcherPid}/task`).flatMap((task) =>
    readFileSync(`/proc/${launcherPid}/task/${task}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number),
  );
  const found = new Map<string, number>();
  for (const pid of children) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const match = stackProcessOf(STACK, readlinkSync(`/proc/${pid}/cwd`), argv);
      if (match) found.set(match.name, pid);
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

async function warmUp(base: string, demoFile: string): Promise<Record<string, number>> {
  const demo = JSON.parse(readFileSync(demoFile, "utf8")) as {
    client_id: string;
    client_secret: string;
  };
  const basic = `Basic ${Buffer.from(`${demo.client_id}:${demo.client_secret}`).toString("base64")}`;
  const tokenRequest = () =>
    fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    });
  const token = ((await (await tokenRequest()).json()) as { access_token: string }).access_token;
  const headers = { authorization: `Bearer ${token}` };
  const vacancies = (
    (await (await fetch(`${base}/v1/vacancies?per_page=100`, { headers })).json()) as {
      data: Array<{ uuid: string }>;
    }
  ).data;
  const statuses: Record<string, number> = {};
  const note = (status: number) => void (statuses[status] = (statuses[status] ?? 0) + 1);
  const paths = [
    "/v1/vacancies?per_page=100",
    "/v1/vacancies?per_page=25&province=ANT",
    "/v1/meta/vacancies",
    "/v1/practices?per_page=100",
    "/v1/meta/practices",
    "/v1/candidates",
    "/v1/applications",
    "/v1/recruitment-cases",
    "/v1/webhooks",
    "/v1/health",
  ];
  for (let i = 0; i < REQUESTS; i++) {
    const batch = paths.map((p) =>
      fetch(`${base}${p}`, { headers }).then(async (r) => note((await r.arrayBuffer(), r.status))),
    );
    batch.push(
      fetch(`${base}/v1/vacancies/${vacancies[i % vacancies.length]?.uuid}`, { headers }).then(
        async (r) => note((await r.arrayBuffer(), r.status)),
      ),
    );
    if (i % 10 === 0)
      batch.push(tokenRequest().then(async (r) => note((await r.arrayBuffer(), r.status))));
    if (i % 4 === 0) {
      const body = JSON.stringify({
        vacancy_uuid: vacancies[i % vacancies.length]?.uuid,
        candidate: { email: `idle.${i}@example.be` },
        consent: true,
        entrypoint: "website",
      });
      batch.push(
        fetch(`${base}/v1/applications`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body,
        }).then(async (r) => note((await r.arrayBuffer(), r.status))),
      );
    }
    await Promise.all(batch);
  }
  return statuses;
}

const offset = await freeOffset();
const suffix = randomBytes(4).toString("hex");
const pgDb = await createTempPgDatabase("idlemem");
const legacyDatabase = `legacy_idle_${suffix}`;
const namespace = `idle${suffix}`;
const demoFile = join(tmpdir(), `idle-memory-demo-${suffix}.json`);
const base = `http://127.0.0.1:${8080 + offset}`;
out(
  `idle memory: the local stack (tools/start.ts) on ports +${offset}, sandbox data set, ${REQUESTS} rounds of warm-up requests, then ${SETTLE_S}s idle`,
);
if (args["node-options"]) out(`NODE_OPTIONS=${args["node-options"]}`);
out(
  `load average at start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
const stack = spawnServiceProcess(
  "tools/start.ts",
  {
    ...(process.env as Record<string, string>),
    RAW_LOGS: "true",
    STACK_PORT_OFFSET: String(offset),
    PG_URL: pgDb.url,
    MYSQL_URL: testEnv.TEST_MYSQL_URL,
    NATS_URL: testEnv.TEST_NATS_URL,
    LEGACY_DATABASE: legacyDatabase,
    NATS_NAMESPACE: namespace,
    DEMO_CLIENT_FILE: demoFile,
    LOG_LEVEL: "info",
    // Extra node flags for every process of the stack, to compare (e.g. --max-semi-space-size=16).
    ...(args["node-options"] ? { NODE_OPTIONS: args["node-options"] } : {}),
  },
  { cwd: root },
);
let failed = false;
try {
  const deadline = Date.now() + 180_000;
  while (
    !stack.output().includes("Integration service is up") &&
    Date.now() < deadline &&
    stack.child.exitCode === null
  )
    await new Promise((r) => setTimeout(r, 250));
  if (!stack.output().includes("Integration service is up"))
    throw new Error(`the stack did not come up:\n${stack.output().slice(-3000)}`);
  const pids = stackPids(stack.child.pid as number);
  const started = new Map([...pids].map(([name, pid]) => [name, processMemory(pid)]));
  const statuses = await warmUp(base, demoFile);
  out(`warm-up responses by status: ${JSON.stringify(statuses)}`);
  await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
  out();
  out(
    "| process | RSS after start (MB) | idle RSS after warm-up (MB) | of which own (anon) / file-backed (MB) | highest RSS so far, VmHWM (MB) | target idle < 120 MB |",
  );
  out("|---|---:|---:|---:|---:|---|");
  for (const proc of STACK) {
    const pid = pids.get(proc.name);
    if (pid === undefined) {
      out(`| ${proc.name} | (not found) | | | |`);
      failed = true;
      continue;
    }
    const idle = await settledRss(pid, { samples: 10, intervalMs: 300 });
    const now = processMemory(pid);
    const hwm = now?.peakMb ?? Number.NaN;
    // The gateway is a local development tool, not deployed.
    const service = proc.name !== "gateway";
    out(
      `| ${proc.name} | ${started.get(proc.name)?.rssMb.toFixed(1) ?? "?"} | ${idle.toFixed(1)} | ${now?.anonMb.toFixed(0)} / ${now?.fileMb.toFixed(0)} | ${hwm.toFixed(1)} | ${service ? (idle < 120 ? "met" : "NOT met") : "(dev tool)"} |`,
    );
    if (service)
      recordBenchRows(
        "idle memory",
        memoryRows(`${proc.name} process, idle after warm-up`, { idleMb: idle }),
      );
    else
      recordBenchRows("idle memory", [
        {
          scenario: `${proc.name} process (local development only), idle after warm-up`,
          metric: "idle RSS",
          value: Math.round(idle * 10) / 10,
          unit: "MB",
        },
      ]);
    recordBenchRows("idle memory", [
      {
        scenario: `${proc.name} process, idle after warm-up`,
        metric: "of which file-backed (shared node binary)",
        value: Math.round(now?.fileMb ?? Number.NaN),
        unit: "MB",
      },
      {
        scenario: `${proc.name} process, since start`,
        metric: "highest RSS (VmHWM)",
        value: Math.round(hwm * 10) / 10,
        unit: "MB",
      },
    ]);
  }
  out(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
} catch (err) {
  failed = true;
  out(String(err instanceof Error ? err.stack : err));
} finally {
  const code = await Promise.race([
    stack.terminate(),
    new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 30_000)),
  ]);
  if (code === "timeout") await stack.kill();
  await pgDb.drop();
  const my = await createConnection({ uri: testEnv.TEST_MYSQL_URL });
  await my.query(`DROP DATABASE IF EXISTS \`${legacyDatabase}\``);
  await my.end();
  const nc = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: "idle-memory-cleanup",
    logger: silentLogger(),
  });
  const jsm = await jetstreamManager(nc);
  for await (const name of jsm.streams.names())
    if (name.includes(namespace)) await jsm.streams.delete(name).catch(() => false);
  await drainNats(nc);
  rmSync(demoFile, { force: true });
}
process.exit(failed ? 1 : 0);
