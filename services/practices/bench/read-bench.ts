/**
 * Practice read throughput at benchmark scale, against a bare baseline measured in the same run.
 *
 *   npm exec -c 'node services/practices/bench/read-bench.ts' [-- --seconds 8 --connections 32 --url mysql://root@127.0.0.1:3306]
 *
 * Uses the `legacy_bench` database, seeded with scale 50 through the generator's own guard and
 * lock only when absent (another service's bench may have made it already; it is then kept).
 * Servers run in a worker thread (bench-servers.ts); this thread only generates load.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { Pool } from "undici";
import { brusselsDate, openServerConnection, seedDatabase } from "@svc/legacy";
import type { ServersReady } from "./bench-servers.ts";

const { values: args } = parseArgs({
  options: {
    url: { type: "string", default: "mysql://root@127.0.0.1:3306" },
    seconds: { type: "string", default: "8" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "32" },
  },
});
const SECONDS = Number(args.seconds);
const WARMUP = Number(args.warmup);
const CONNECTIONS = Number(args.connections);
const ROUNDS = 4;
const DATABASE = "legacy_bench";
const print = (line = "") => process.stdout.write(`${line}\n`);

async function ensureBenchData(): Promise<{ today: string; scale: number }> {
  const connection = await openServerConnection(args.url);
  try {
    const result = await seedDatabase(connection, DATABASE, { seed: 1, scale: 50, today: brusselsDate(Date.now()) }, "if-absent", (m) => print(`  ${m}`));
    return { today: result.options.today, scale: result.options.scale };
  } finally {
    await connection.end();
  }
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Server-thread CPU time per request (µs). */
  cpuUs: number;
}

interface Target {
  port: number;
  path: (i: number) => string;
  headers: Record<string, string>;
}

interface Slice {
  latencies: number[];
  sent: number;
  errors: number;
  cpuUs: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Closed loop for `seconds`: CONNECTIONS clients, each sending its next request when the last one is answered. */
async function slice(target: Target, seconds: number, serverCpuUs: () => Promise<number>): Promise<Slice> {
  const pool = new Pool(`http://127.0.0.1:${target.port}`, { connections: CONNECTIONS, pipelining: 1 });
  const cpuBefore = await serverCpuUs();
  const until = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const client = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      const res = await pool.request({ method: "GET", path: target.path(sent++), headers: target.headers });
      await res.body.text();
      if (res.statusCode !== 200) errors++;
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, client));
  const cpuUs = (await serverCpuUs()) - cpuBefore;
  await pool.close();
  return { latencies, sent, errors, cpuUs };
}

function summarise(slices: Slice[]): Measured {
  const latencies = slices.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const sent = slices.reduce((n, s) => n + s.sent, 0);
  return {
    rps: latencies.length / SECONDS,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors: slices.reduce((n, s) => n + s.errors, 0),
    cpuUs: slices.reduce((n, s) => n + s.cpuUs, 0) / sent,
  };
}

/**
 * Baseline and app in alternating slices (ROUNDS each, SECONDS in total per side), so both see the
 * same background load on a shared machine; each side is warmed up first.
 */
async function pair(baseline: Target, app: Target, serverCpuUs: () => Promise<number>): Promise<[Measured, Measured]> {
  await slice(baseline, WARMUP, serverCpuUs);
  await slice(app, WARMUP, serverCpuUs);
  const b: Slice[] = [];
  const a: Slice[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    b.push(await slice(baseline, SECONDS / ROUNDS, serverCpuUs));
    a.push(await slice(app, SECONDS / ROUNDS, serverCpuUs));
  }
  return [summarise(b), summarise(a)];
}

async function practiceIds(port: number, token: string): Promise<string[]> {
  const ids: string[] = [];
  for (const page of [1, 40, 80, 120, 160, 200]) {
    const res = await fetch(`http://127.0.0.1:${port}/v1/practices?per_page=100&page=${page}`, { headers: { authorization: `Bearer ${token}` } });
    ids.push(...((await res.json()) as { data: Array<{ practice_id: string }> }).data.map((p) => p.practice_id));
  }
  return ids;
}

const data = await ensureBenchData();
print(`load average: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
print(`practices read bench: ${DATABASE} (scale ${data.scale}, today ${data.today}), ${CONNECTIONS} connections, ${WARMUP}s warm-up + ${SECONDS}s per row in ${ROUNDS} slices alternating with its baseline`);
const worker = new Worker(new URL("./bench-servers.ts", import.meta.url), {
  workerData: { legacyUrl: `${args.url.replace(/\/$/, "")}/${DATABASE}`, now: Date.parse(`${data.today}T10:00:00Z`), today: data.today },
});
const ports = await new Promise<ServersReady>((resolve, reject) => worker.once("message", resolve).once("error", reject));
const auth = { authorization: `Bearer ${ports.token}`, accept: "application/json" };
const listPage = (i: number) => 1 + (i % 20);
const ids = await practiceIds(ports.appDefault, ports.token);

const serverCpuUs = () =>
  new Promise<number>((resolve) => {
    worker.once("message", (m: { cpuUs: number }) => resolve(m.cpuUs));
    worker.postMessage("cpu");
  });
const base = (path: (i: number) => string): Target => ({ port: ports.baseline, path, headers: {} });
const appAt = (port: number, path: (i: number) => string): Target => ({ port, path, headers: auth });
const single = (i: number) => encodeURIComponent(ids[i % ids.length] as string);
// Pages 1-20 of 25 in turn (a page reads about offset + per_page rows per branch), and page 1 alone.
const scenarios: Array<[string, string, Target, Target]> = [
  ["baseline  list p1-20 (page + COUNT SQL)", "app       list p1-20, totals cache off",
    base((i) => `/list?per_page=25&page=${listPage(i)}`), appAt(ports.appNoCache, (i) => `/v1/practices?per_page=25&page=${listPage(i)}`)],
  ["baseline  list p1-20 (page SQL only)", "app       list p1-20, default (5 s totals)",
    base((i) => `/list?per_page=25&page=${listPage(i)}&count=false`), appAt(ports.appDefault, (i) => `/v1/practices?per_page=25&page=${listPage(i)}`)],
  ["baseline  list p1 (page SQL only)", "app       list p1, default (5 s totals)",
    base(() => "/list?per_page=25&page=1&count=false"), appAt(ports.appDefault, () => "/v1/practices?per_page=25&page=1")],
  ["baseline  single read", "app       single read", base((i) => `/one/${single(i)}`), appAt(ports.appDefault, (i) => `/v1/practices/${single(i)}`)],
];
const rows: Array<[string, Measured, Measured | undefined]> = [];
for (const [baseLabel, appLabel, baseTarget, appTarget] of scenarios) {
  const [b, a] = await pair(baseTarget, appTarget, serverCpuUs);
  rows.push([baseLabel, b, undefined], [appLabel, a, b]);
}

print();
print("| scenario | req/s | p50 ms | p99 ms | errors | server CPU µs/req | req/s ratio vs baseline above |");
print("|---|---:|---:|---:|---:|---:|---:|");
for (const [label, m, against] of rows) {
  const ratio = against ? (m.rps / against.rps).toFixed(2) : "";
  print(`| ${label} | ${m.rps.toFixed(0)} | ${m.p50.toFixed(1)} | ${m.p99.toFixed(1)} | ${m.errors} | ${m.cpuUs.toFixed(0)} | ${ratio} |`);
}
print();
print("targets: app list >= 0.60 x its baseline; p99 < 100 ms (app default list, app single read)");
print(`load average now: ${loadavg().map((l) => l.toFixed(2)).join(" ")} (other processes on this machine skew wall-clock figures; server CPU per request less so)`);
worker.postMessage("close");
await new Promise((resolve) => worker.once("exit", resolve));
