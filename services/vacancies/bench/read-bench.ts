/**
 * Read benchmark: the vacancies service against benchmark-scale data (legacy_bench, scale 50 ≈
 * 100,000 vacancies, seeded if absent), beside a bare node:http baseline that runs the same SQL
 * and serialises the rows unmapped, measured in the same run by the same generators: wrk for each
 * one's maximum throughput (32 connections, closed loop), then the open-loop generator at 50 % and
 * 80 % of the service's own maximum, to both at the same rates, for p50/p99/p99.9 (@svc/bench
 * read-load.ts). Neither generator runs in Node.
 *
 * The service is its real entry point (the bundle of src/main.ts) in its own process, launched as
 * in production (@svc/runtime's NODE_FLAGS; request logging at info, change detection and the
 * outbox relay running), against a private PostgreSQL database and NATS namespace; the baseline is
 * its own process too (baseline-process.ts). Each one's RSS is read from /proc: idle after start-up
 * and warm-up, and the peak while loaded.
 *
 *   npm exec -c 'node services/vacancies/bench/read-bench.ts' \
 *     [-- --seconds 5 --open-seconds 5 --only single --node-args="--optimize-for-size"]
 *
 * Targets: list ≥ 60% of baseline throughput; at 50 % of the maximum, list p99 < 50 ms and single
 * reads p99 < 5 ms; RSS < 120 MB idle and < 200 MB under load.
 */
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Pool } from "undici";
import { createLegacyDb } from "@svc/db";
import { openServerConnection, seedDatabase, addDays } from "@svc/sandbox";
import {
  IDLE_SETTLE_MS,
  maxThroughput,
  measureReadScenario,
  memoryRows,
  readScenarioLines,
  readScenarioRows,
  recordBenchRows,
  settledRss,
  startBenchProcess,
  startServiceUnderBench,
  type BenchProcess,
  type BenchRow,
  type ReadTarget,
  benchMemoryLimit,
} from "@svc/bench";
import { build } from "@svc/build";
import { entryArgs } from "@svc/manifest";
import { dateIn } from "@svc/time";
import { NODE_FLAGS, RUNTIME_ENV } from "@svc/runtime";
import { countStatement, pageStatement } from "../src/source/mysql-vacancy-source.ts";
import { filterOf } from "./baseline-server.ts";

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    "open-seconds": { type: "string", default: "5" },
    connections: { type: "string", default: "32" },
    url: { type: "string", default: "mysql://root@127.0.0.1:3306" },
    "node-args": { type: "string" },
    only: { type: "string" },
  },
});
const SECONDS = Number(args.seconds);
const OPEN_SECONDS = Number(args["open-seconds"]);
const CONNECTIONS = Number(args.connections);
const NODE_ARGS =
  args["node-args"] === undefined ? [...NODE_FLAGS] : args["node-args"].split(" ").filter(Boolean);
const DATABASE = "legacy_bench";
const SCALE = 50;
const BENCH = "vacancies read";
const root = fileURLToPath(new URL("../../..", import.meta.url));
const out = (line = "") => process.stdout.write(`${line}\n`);

async function ensureBenchData(): Promise<string> {
  const connection = await openServerConnection(args.url);
  try {
    const options = { seed: 1, scale: SCALE, today: dateIn("Europe/Brussels", Date.now()) };
    let result = await seedDatabase(connection, DATABASE, options, "if-absent", out);
    if (result.options.scale !== SCALE)
      result = await seedDatabase(connection, DATABASE, options, "replace", out);
    out(
      `data: ${DATABASE} ${result.action} (seed ${result.options.seed}, scale ${result.options.scale}, today ${result.options.today})`,
    );
  } finally {
    await connection.end();
  }
  const url = new URL(args.url);
  url.pathname = `/${DATABASE}`;
  return url.toString();
}

type Target = {
  kind: "service" | "baseline";
  origin: string;
  token: string;
  process: BenchProcess;
};

async function startBaseline(legacyUrl: string): Promise<Target> {
  const proc = startBenchProcess(
    [...NODE_ARGS, fileURLToPath(new URL("./baseline-process.ts", import.meta.url)), legacyUrl],
    {
      env: { ...RUNTIME_ENV, NODE_ENV: "production" },
      keep: /^\{"port"/,
      ...benchMemoryLimit("vacancies"),
    },
  );
  const line = await proc.waitForLine(/^\{"port"/, 120_000);
  return {
    kind: "baseline",
    origin: `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`,
    token: "",
    process: proc,
  };
}

/** What a generator sends to `target` for a scenario: its paths in turn, with the bearer token. */
function readTarget(target: Target, paths: readonly string[]): ReadTarget {
  return {
    origin: target.origin,
    headers: { authorization: `Bearer ${target.token}`, accept: "application/json" },
    paths,
    process: target.process,
  };
}

async function discover(service: Target): Promise<{ pages: number; uuids: string[] }> {
  const pool = new Pool(service.origin);
  const get = async (path: string) => {
    const res = await pool.request({
      path,
      method: "GET",
      headers: { authorization: `Bearer ${service.token}` },
    });
    return (await res.body.json()) as {
      data: Array<{ uuid: string }>;
      meta: { pagination: { total_pages: number } };
    };
  };
  const first = await get("/v1/vacancies?per_page=100");
  const pages = first.meta.pagination.total_pages;
  const uuids: string[] = [];
  for (let i = 0; i < 20; i++)
    uuids.push(
      ...(
        await get(`/v1/vacancies?per_page=100&page=${1 + Math.floor(Math.random() * pages)}`)
      ).data.map((v) => v.uuid),
    );
  await pool.close();
  return { pages, uuids };
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
/** Request paths drawn up front, sent in turn by the generators. */
function draws(pathFor: () => string, n = 1000): string[] {
  const paths = Array.from({ length: n }, pathFor);
  return new Set(paths).size === 1 ? paths.slice(0, 1) : paths;
}

async function explain(legacyUrl: string, scenarios: Array<[string, () => string]>): Promise<void> {
  const db = createLegacyDb({ url: legacyUrl });
  const asOf = { today: dateIn("Europe/Brussels", Date.now()) };
  out("\nquery plans (table:access:index per step; count | page):");
  for (const [name, pathFor] of scenarios.filter(([, p]) => p().startsWith("/v1/vacancies?"))) {
    const params = new URL(pathFor(), "http://x").searchParams;
    const filter = filterOf(params);
    const plans = [];
    const offset = (Number(params.get("page") ?? 1) - 1) * 100;
    // A deep page walks from a page mark in the service (MysqlVacancySource): that plan's shape,
    // from some row key (the marks' ids themselves are the service's).
    const deep = offset + 100 > 5_000 && filter.updatedSinceLocal === undefined;
    const page = deep
      ? pageStatement(filter, asOf, { offset: offset % 250, limit: 100 }, { fromKey: offset })
      : pageStatement(filter, asOf, { offset, limit: 100 });
    for (const s of [countStatement(filter, asOf), page]) {
      const rows = await db.query<Record<string, unknown>>(`EXPLAIN ${s.sql}`, s.params);
      plans.push(
        rows
          .map(
            (r) =>
              `${String(r.table)}:${String(r.type)}:${String(r.key)}${String(r.Extra ?? "").includes("filesort") ? "+sort" : ""}`,
          )
          .join(" "),
      );
    }
    out(`  ${name.padEnd(28)} ${plans.join("  |  ")}`);
  }
  await db.close();
}

const legacyUrl = await ensureBenchData();
out(
  `load average at start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}; node flags of both servers: ${NODE_ARGS.join(" ") || "(none)"}`,
);
await build();
const started = await startServiceUnderBench({
  root,
  entry: "services/vacancies/src/main.ts",
  args: [...NODE_ARGS, ...entryArgs("services/vacancies/src/main.ts", { from: "bundle" })],
  env: { ...RUNTIME_ENV, LEGACY_DATABASE_URL: legacyUrl },
  ...benchMemoryLimit("vacancies"),
  keep: /change detection pass done/,
});
const baseline = await startBaseline(legacyUrl);
try {
  // The first change-detection pass over a fresh database is the baseline sweep of every vacancy:
  // let it finish so it does not run inside the measurements (later passes are incremental).
  const sweep = await started.process.waitForLine(/change detection pass done/, 300_000);
  out(
    `change detection baseline: ${/"durationMs":(\d+)/.exec(sweep)?.[1] ?? "?"} ms; highest RSS of the service so far (start-up and baseline sweep): ${started.process.memory.peak().toFixed(0)} MB`,
  );
  const service: Target = {
    kind: "service",
    origin: started.origin,
    token: await started.mint({ scope: "vacancies:read" }),
    process: started.process,
  };
  const { pages, uuids } = await discover(service);
  const today = dateIn("Europe/Brussels", Date.now());
  const scenarios: Array<[string, () => string]> = [
    ["list page 1", () => "/v1/vacancies?per_page=100"],
    [
      "list random page",
      () => `/v1/vacancies?per_page=100&page=${1 + Math.floor(Math.random() * pages)}`,
    ],
    ["list province", () => "/v1/vacancies?per_page=100&province=ANT"],
    ["list language+published", () => "/v1/vacancies?per_page=100&language=nl&published=true"],
    ["list position+status", () => "/v1/vacancies?per_page=100&position=TAS&status=created"],
    [
      "list updated_since 7 days",
      () => `/v1/vacancies?per_page=100&updated_since=${addDays(today, -7)}`,
    ],
    ["single", () => `/v1/vacancies/${pick(uuids)}`],
  ];
  const selected = scenarios.filter(([name]) => !args.only || name.includes(args.only));

  const drawn = selected.map(([name, pathFor]) => ({ name, paths: draws(pathFor) }));

  // Warm-up of both (JIT, pools, caches), then idle RSS once settled.
  for (const { paths } of drawn) {
    for (const target of [service, baseline])
      await maxThroughput(readTarget(target, paths), { connections: CONNECTIONS, seconds: 1 });
  }
  await new Promise((r) => setTimeout(r, 3_000));
  const [serviceIdle, baselineIdle] = await Promise.all([
    settledRss(service.process.pid, { settleMs: IDLE_SETTLE_MS }),
    settledRss(baseline.process.pid, { settleMs: IDLE_SETTLE_MS }),
  ]);
  const idle = { service: serviceIdle, baseline: baselineIdle };

  out(
    `${pages} pages of 100; ${CONNECTIONS} connections; per scenario wrk ${SECONDS}s per target, then open loop ${OPEN_SECONDS}s per target at 50% and 80% of the service's maximum\n`,
  );
  const rows: BenchRow[] = [];
  const overall = { service: 0, baseline: 0 };
  for (const { name, paths } of drawn) {
    const result = await measureReadScenario(
      readTarget(service, paths),
      readTarget(baseline, paths),
      { connections: CONNECTIONS, maxSeconds: SECONDS, openSeconds: OPEN_SECONDS },
    );
    for (const line of readScenarioLines(name, result)) out(line);
    const single = name === "single";
    const scenario = single
      ? `single read, ${CONNECTIONS} conns`
      : `${name}, per_page=100, ${CONNECTIONS} conns`;
    rows.push(
      ...readScenarioRows(
        scenario,
        result,
        single ? { p99Ms: 5 } : { throughputShare: 0.6, p99Ms: 50 },
      ),
    );
    overall.service = Math.max(overall.service, result.peakMb.service);
    overall.baseline = Math.max(overall.baseline, result.peakMb.baseline);
  }
  rows.push(
    ...memoryRows("vacancies process (main.ts)", {
      idleMb: idle.service,
      baselineIdleMb: idle.baseline,
      peakMb: overall.service,
      baselinePeakMb: overall.baseline,
    }),
  );
  recordBenchRows(BENCH, rows);
  out(
    `\nRSS: service idle ${idle.service.toFixed(0)} MB, peak under load ${overall.service.toFixed(0)} MB; baseline idle ${idle.baseline.toFixed(0)} MB, peak ${overall.baseline.toFixed(0)} MB (targets < 120 / < 200 MB)`,
  );
  await explain(legacyUrl, selected);
  out(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
} finally {
  await baseline.process.stop();
  await started.stop();
}
