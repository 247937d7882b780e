/**
 * Read benchmark: the vacancies API against benchmark-scale data (legacy_bench, scale 50 ≈ 100,000
 * vacancies, seeded if absent), beside a bare node:http baseline that runs the same SQL and
 * serialises the rows unmapped, measured in the same run, alternating rounds.
 *
 *   npm exec -c 'node services/vacancies/bench/read-bench.ts' [-- --seconds 4 --rounds 2 --url mysql://root@127.0.0.1:3306]
 *
 * Targets: list ≥ 60% of baseline throughput with p99 < 100 ms; single reads p99 < 10 ms.
 */
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { Pool } from "undici";
import { createLegacyDb } from "@svc/db";
import { openServerConnection, seedDatabase, addDays } from "@svc/legacy";
import { dateIn } from "@svc/time";
import { countStatement, pageStatement } from "../src/source/mysql-vacancy-source.ts";
import { filterOf } from "./baseline-server.ts";

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "4" },
    rounds: { type: "string", default: "2" },
    connections: { type: "string", default: "32" },
    url: { type: "string", default: "mysql://root@127.0.0.1:3306" },
  },
});
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
const CONNECTIONS = Number(args.connections);
const DATABASE = "legacy_bench";
const SCALE = 50;
const out = (line = "") => process.stdout.write(`${line}\n`);

async function ensureBenchData(): Promise<string> {
  const connection = await openServerConnection(args.url);
  try {
    const options = { seed: 1, scale: SCALE, today: dateIn("Europe/Brussels", Date.now()) };
    let result = await seedDatabase(connection, DATABASE, options, "if-absent", out);
    if (result.options.scale !== SCALE) result = await seedDatabase(connection, DATABASE, options, "replace", out);
    out(`data: ${DATABASE} ${result.action} (seed ${result.options.seed}, scale ${result.options.scale}, today ${result.options.today})`);
  } finally {
    await connection.end();
  }
  const url = new URL(args.url);
  url.pathname = `/${DATABASE}`;
  return url.toString();
}

type Target = { kind: "service" | "baseline"; origin: string; token: string; worker: Worker };

async function startTarget(kind: Target["kind"], legacyUrl: string): Promise<Target> {
  const worker = new Worker(new URL("./bench-server.ts", import.meta.url), { workerData: { kind, legacyUrl } });
  const { port, token } = await new Promise<{ port: number; token: string }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return { kind, origin: `http://127.0.0.1:${port}`, token, worker };
}

type Sample = { latencies: number[]; errors: number; elapsedMs: number };

/** CONNECTIONS loops, each sending its next request as soon as the previous body is read. */
async function load(target: Target, pathFor: () => string, ms: number): Promise<Sample> {
  const pool = new Pool(target.origin, { connections: CONNECTIONS, pipelining: 1 });
  const headers = { authorization: `Bearer ${target.token}`, accept: "application/json" };
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const end = started + ms;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const res = await pool.request({ origin: target.origin, path: pathFor(), method: "GET", headers });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) errors += 1;
      latencies.push(performance.now() - t0);
    }
  }));
  const elapsedMs = performance.now() - started;
  await pool.close();
  return { latencies, errors, elapsedMs };
}

function merge(samples: Sample[]): Sample {
  return { latencies: samples.flatMap((s) => s.latencies), errors: samples.reduce((n, s) => n + s.errors, 0), elapsedMs: samples.reduce((n, s) => n + s.elapsedMs, 0) };
}

function stats(sample: Sample) {
  const sorted = [...sample.latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { rps: sorted.length / (sample.elapsedMs / 1000), p50: at(0.5), p99: at(0.99), errors: sample.errors };
}

async function discover(service: Target): Promise<{ pages: number; uuids: string[] }> {
  const pool = new Pool(service.origin);
  const get = async (path: string) => {
    const res = await pool.request({ path, method: "GET", headers: { authorization: `Bearer ${service.token}` } });
    return (await res.body.json()) as { data: Array<{ uuid: string }>; meta: { pagination: { total_pages: number } } };
  };
  const first = await get("/v1/vacancies?per_page=100");
  const pages = first.meta.pagination.total_pages;
  const uuids: string[] = [];
  for (let i = 0; i < 20; i++) uuids.push(...(await get(`/v1/vacancies?per_page=100&page=${1 + Math.floor(Math.random() * pages)}`)).data.map((v) => v.uuid));
  await pool.close();
  return { pages, uuids };
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

async function explain(legacyUrl: string, scenarios: Array<[string, () => string]>): Promise<void> {
  const db = createLegacyDb({ url: legacyUrl });
  const asOf = { today: dateIn("Europe/Brussels", Date.now()) };
  out("\nquery plans (table:access:index per step; count | page):");
  for (const [name, pathFor] of scenarios.filter(([, p]) => p().startsWith("/v1/vacancies?"))) {
    const params = new URL(pathFor(), "http://x").searchParams;
    const filter = filterOf(params);
    const plans = [];
    for (const s of [countStatement(filter, asOf), pageStatement(filter, asOf, { offset: (Number(params.get("page") ?? 1) - 1) * 100, limit: 100 })]) {
      const rows = await db.query<Record<string, unknown>>(`EXPLAIN ${s.sql}`, s.params);
      plans.push(rows.map((r) => `${String(r.table)}:${String(r.type)}:${String(r.key)}${String(r.Extra ?? "").includes("filesort") ? "+sort" : ""}`).join(" "));
    }
    out(`  ${name.padEnd(28)} ${plans.join("  |  ")}`);
  }
  await db.close();
}

const legacyUrl = await ensureBenchData();
const service = await startTarget("service", legacyUrl);
const baseline = await startTarget("baseline", legacyUrl);
const { pages, uuids } = await discover(service);
const today = dateIn("Europe/Brussels", Date.now());
const scenarios: Array<[string, () => string]> = [
  ["list page 1", () => "/v1/vacancies?per_page=100"],
  ["list random page", () => `/v1/vacancies?per_page=100&page=${1 + Math.floor(Math.random() * pages)}`],
  ["list province", () => "/v1/vacancies?per_page=100&province=ANT"],
  ["list language+published", () => "/v1/vacancies?per_page=100&language=nl&published=true"],
  ["list position+status", () => "/v1/vacancies?per_page=100&position=TAS&status=created"],
  ["list updated_since 7 days", () => `/v1/vacancies?per_page=100&updated_since=${addDays(today, -7)}`],
  ["single", () => `/v1/vacancies/${pick(uuids)}`],
];

out(`${pages} pages of 100; ${CONNECTIONS} connections; ${ROUNDS} rounds of ${SECONDS}s per target and scenario, alternating\n`);
out(`${"scenario".padEnd(28)} ${"svc req/s".padStart(9)} ${"base req/s".padStart(10)} ${"ratio".padStart(6)}   ${"svc p50/p99 ms".padStart(15)}   ${"base p50/p99 ms".padStart(15)}  errors`);
for (const [name, pathFor] of scenarios) {
  await load(service, pathFor, 1_000);
  await load(baseline, pathFor, 1_000);
  const runs: Record<Target["kind"], Sample[]> = { service: [], baseline: [] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.baseline.push(await load(baseline, pathFor, SECONDS * 1000));
    runs.service.push(await load(service, pathFor, SECONDS * 1000));
  }
  const s = stats(merge(runs.service));
  const b = stats(merge(runs.baseline));
  const ms = (x: { p50: number; p99: number }) => `${x.p50.toFixed(1)}/${x.p99.toFixed(1)}`.padStart(15);
  out(`${name.padEnd(28)} ${s.rps.toFixed(0).padStart(9)} ${b.rps.toFixed(0).padStart(10)} ${`${((s.rps / b.rps) * 100).toFixed(0)}%`.padStart(6)}   ${ms(s)}   ${ms(b)}  ${s.errors}/${b.errors}`);
}
await explain(legacyUrl, scenarios);
for (const target of [service, baseline]) {
  target.worker.postMessage("stop");
  await target.worker.terminate();
}
