/**
 * Practice read throughput at benchmark scale, against a bare baseline measured in the same run,
 * alternating slices, both loaded by the same client (32 connections, closed loop).
 *
 *   npm exec -c 'node services/practices/bench/read-bench.ts' \
 *     [-- --seconds 8 --connections 32 --node-args="…"]
 *
 * Uses the `legacy_bench` database, seeded with scale 50 through the generator's own guard and
 * lock only when absent (another service's bench may have made it already; it is then kept).
 * The service is its real entry point (the bundle of src/main.ts) in its own process, launched as
 * in production (@svc/runtime's NODE_FLAGS), twice: as configured by default (5 s totals and
 * page-marks caches) and with both off; the baseline (baseline-process.ts) is its own process too.
 * Each one's RSS is read from /proc: idle after start-up and warm-up, and the peak while loaded.
 * This process only generates load.
 *
 * Targets: list ≥ 60% of the baseline's throughput; p99 < 100 ms (list, single read);
 * RSS < 120 MB idle and < 200 MB under load.
 */
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { brusselsDate, openServerConnection, seedDatabase } from "@svc/legacy";
import {
  closedLoopLoad,
  IDLE_SETTLE_MS,
  memoryRows,
  processCpuMs,
  recordBenchRows,
  settledRss,
  startBenchProcess,
  startServiceUnderBench,
  type BenchProcess,
  type BenchRow,
  type ServiceUnderBench,
  benchMemoryLimit,
} from "@svc/bench";
import { build } from "@svc/build";
import { entryArgs } from "@svc/manifest";
import { NODE_FLAGS, RUNTIME_ENV } from "@svc/runtime";

const { values: args } = parseArgs({
  options: {
    url: { type: "string", default: "mysql://root@127.0.0.1:3306" },
    seconds: { type: "string", default: "8" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "32" },
    "node-args": { type: "string" },
  },
});
const SECONDS = Number(args.seconds);
const WARMUP = Number(args.warmup);
const CONNECTIONS = Number(args.connections);
const NODE_ARGS =
  args["node-args"] === undefined ? [...NODE_FLAGS] : args["node-args"].split(" ").filter(Boolean);
const ROUNDS = 4;
const DATABASE = "legacy_bench";
const BENCH = "practices read";
const root = fileURLToPath(new URL("../../..", import.meta.url));
const print = (line = "") => process.stdout.write(`${line}\n`);

async function ensureBenchData(): Promise<{ today: string; scale: number }> {
  const connection = await openServerConnection(args.url);
  try {
    const result = await seedDatabase(
      connection,
      DATABASE,
      { seed: 1, scale: 50, today: brusselsDate(Date.now()) },
      "if-absent",
      (m) => print(`  ${m}`),
    );
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
  /** Server process CPU time per request (µs): robust to other processes on the machine. */
  cpuUs: number;
  /** Highest RSS of the server process during the slices (MB). */
  peakMb: number;
}

interface Target {
  process: BenchProcess;
  origin: string;
  path: (i: number) => string;
  headers: Record<string, string>;
}

interface Slice {
  latencies: number[];
  sent: number;
  errors: number;
  cpuMs: number;
  peakMb: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/**
 * Closed loop for `seconds`: CONNECTIONS clients, each sending its next request when the last one
 * is answered (closedLoopLoad).
 */
async function slice(target: Target, seconds: number): Promise<Slice> {
  target.process.memory.reset();
  const cpuBefore = processCpuMs(target.process.pid);
  let sent = 0;
  const result = await closedLoopLoad(
    target.origin,
    () => ({ path: target.path(sent++), headers: target.headers }),
    { connections: CONNECTIONS, durationMs: seconds * 1000 },
  );
  const cpuMs = processCpuMs(target.process.pid) - cpuBefore;
  return {
    latencies: result.latencies,
    sent,
    errors: result.latencies.length - (result.statuses[200] ?? 0),
    cpuMs,
    peakMb: target.process.memory.peak(),
  };
}

function summarise(slices: Slice[]): Measured {
  const latencies = slices.flatMap((s) => s.latencies).sort((a, b) => a - b);
  return {
    rps: latencies.length / SECONDS,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors: slices.reduce((n, s) => n + s.errors, 0),
    cpuUs: (slices.reduce((n, s) => n + s.cpuMs, 0) * 1000) / latencies.length,
    peakMb: Math.max(...slices.map((s) => s.peakMb)),
  };
}

/**
 * Baseline and app in alternating slices (ROUNDS each, SECONDS in total per side), so both see the
 * same background load on a shared machine; each side is warmed up first.
 */
async function pair(baseline: Target, app: Target): Promise<[Measured, Measured]> {
  await slice(baseline, WARMUP);
  await slice(app, WARMUP);
  const b: Slice[] = [];
  const a: Slice[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    b.push(await slice(baseline, SECONDS / ROUNDS));
    a.push(await slice(app, SECONDS / ROUNDS));
  }
  return [summarise(b), summarise(a)];
}

async function practiceIds(origin: string, token: string): Promise<string[]> {
  const ids: string[] = [];
  for (const page of [1, 40, 80, 120, 160, 200]) {
    const res = await fetch(`${origin}/v1/practices?per_page=100&page=${page}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    ids.push(
      ...((await res.json()) as { data: Array<{ practice_id: string }> }).data.map(
        (p) => p.practice_id,
      ),
    );
  }
  return ids;
}

async function startBaseline(
  legacyUrl: string,
  today: string,
): Promise<{ process: BenchProcess; origin: string }> {
  const proc = startBenchProcess(
    [
      ...NODE_ARGS,
      fileURLToPath(new URL("./baseline-process.ts", import.meta.url)),
      legacyUrl,
      today,
    ],
    {
      env: { ...RUNTIME_ENV, NODE_ENV: "production" },
      keep: /^\{"port"/,
      ...benchMemoryLimit("practices"),
    },
  );
  const line = await proc.waitForLine(/^\{"port"/, 30_000);
  return {
    process: proc,
    origin: `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`,
  };
}

async function startApp(
  legacyUrl: string,
  env: Record<string, string>,
): Promise<ServiceUnderBench> {
  await build();
  const service = await startServiceUnderBench({
    root,
    entry: "services/practices/src/main.ts",
    args: [...NODE_ARGS, ...entryArgs("services/practices/src/main.ts", { from: "bundle" })],
    env: { ...RUNTIME_ENV, LEGACY_DATABASE_URL: legacyUrl, ...env },
    keep: /change detection pass done/,
    ...benchMemoryLimit("practices"),
  });
  // The first pass over a fresh database is the baseline sweep of every practice: not inside the
  // measurements.
  await service.process.waitForLine(/change detection pass done/, 300_000);
  return service;
}

const data = await ensureBenchData();
const legacyUrl = `${args.url.replace(/\/$/, "")}/${DATABASE}`;
print(
  `load average at start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}; node flags of every server: ${NODE_ARGS.join(" ") || "(none)"}`,
);
print(
  `practices read bench: ${DATABASE} (scale ${data.scale}, today ${data.today}), ${CONNECTIONS} connections, ${WARMUP}s warm-up + ${SECONDS}s per row in ${ROUNDS} slices alternating with its baseline`,
);
const appDefault = await startApp(legacyUrl, {});
const appNoCache = await startApp(legacyUrl, {
  PRACTICE_TOTALS_CACHE_MS: "0",
  PRACTICE_PAGE_MARKS_CACHE_MS: "0",
});
const bare = await startBaseline(legacyUrl, data.today);
try {
  const token = await appDefault.mint({ scope: "practices:read" });
  const tokenNoCache = await appNoCache.mint({ scope: "practices:read" });
  const ids = await practiceIds(appDefault.origin, token);
  const listPage = (i: number) => 1 + (i % 20);
  const base = (path: (i: number) => string): Target => ({
    process: bare.process,
    origin: bare.origin,
    path,
    headers: {},
  });
  const appAt = (app: ServiceUnderBench, bearer: string, path: (i: number) => string): Target => ({
    process: app.process,
    origin: app.origin,
    path,
    headers: { authorization: `Bearer ${bearer}`, accept: "application/json" },
  });
  const single = (i: number) => encodeURIComponent(ids[i % ids.length] as string);
  // Pages 1-20 of 25 in turn (cut from the start of the union, a page reads about offset + per_page
  // practices per branch; from a page mark, about per_page), and page 1 alone.
  const scenarios: Array<{
    key: string;
    base: string;
    app: string;
    baseTarget: Target;
    appTarget: Target;
    single?: boolean;
    cacheOff?: boolean;
  }> = [
    {
      key: "list p1-20, per_page=25, totals and page-marks caches off",
      base: "baseline  list p1-20 (page + COUNT SQL)",
      app: "app       list p1-20, caches off",
      cacheOff: true,
      baseTarget: base((i) => `/list?per_page=25&page=${listPage(i)}`),
      appTarget: appAt(
        appNoCache,
        tokenNoCache,
        (i) => `/v1/practices?per_page=25&page=${listPage(i)}`,
      ),
    },
    {
      key: "list p1-20, per_page=25 (5 s totals and page marks)",
      base: "baseline  list p1-20 (page SQL only)",
      app: "app       list p1-20, default (5 s totals, marks)",
      baseTarget: base((i) => `/list?per_page=25&page=${listPage(i)}&count=false`),
      appTarget: appAt(appDefault, token, (i) => `/v1/practices?per_page=25&page=${listPage(i)}`),
    },
    {
      key: "list p1, per_page=25 (5 s totals cache)",
      base: "baseline  list p1 (page SQL only)",
      app: "app       list p1, default (5 s totals)",
      baseTarget: base(() => "/list?per_page=25&page=1&count=false"),
      appTarget: appAt(appDefault, token, () => "/v1/practices?per_page=25&page=1"),
    },
    {
      key: "single read",
      base: "baseline  single read",
      app: "app       single read",
      single: true,
      baseTarget: base((i) => `/one/${single(i)}`),
      appTarget: appAt(appDefault, token, (i) => `/v1/practices/${single(i)}`),
    },
  ];
  // Warm-up of every server (JIT, pools), then idle RSS once settled.
  for (const s of scenarios) {
    await slice(s.baseTarget, 1);
    await slice(s.appTarget, 1);
  }
  await new Promise((r) => setTimeout(r, 3_000));
  const settled = (pid: number) => settledRss(pid, { settleMs: IDLE_SETTLE_MS });
  const [appIdle, appNoCacheIdle, baselineIdle] = await Promise.all([
    settled(appDefault.process.pid),
    settled(appNoCache.process.pid),
    settled(bare.process.pid),
  ]);
  const idle = { app: appIdle, appNoCache: appNoCacheIdle, baseline: baselineIdle };

  const printed: Array<[string, Measured, Measured | undefined]> = [];
  const rows: BenchRow[] = [];
  const peaks = { app: 0, baseline: 0 };
  for (const s of scenarios) {
    const [b, a] = await pair(s.baseTarget, s.appTarget);
    printed.push([s.base, b, undefined], [s.app, a, b]);
    const r1 = (x: number) => Math.round(x * 10) / 10;
    rows.push(
      {
        scenario: s.key,
        metric: "throughput",
        value: Math.round(a.rps),
        unit: "req/s",
        baseline: Math.round(b.rps),
        ...(s.single ? {} : { target: "≥ 60% of baseline", met: a.rps >= 0.6 * b.rps }),
      },
      { scenario: s.key, metric: "p50", value: r1(a.p50), unit: "ms", baseline: r1(b.p50) },
      {
        scenario: s.key,
        metric: "p99",
        value: r1(a.p99),
        unit: "ms",
        baseline: r1(b.p99),
        ...(s.cacheOff ? {} : { target: "< 100 ms", met: a.p99 < 100 }),
      },
      {
        scenario: s.key,
        metric: "server CPU per request",
        value: Math.round(a.cpuUs),
        unit: "µs",
        baseline: Math.round(b.cpuUs),
      },
      {
        scenario: s.key,
        metric: "peak RSS",
        value: Math.round(a.peakMb),
        unit: "MB",
        baseline: Math.round(b.peakMb),
      },
    );
    if (a.errors + b.errors > 0)
      rows.push({
        scenario: s.key,
        metric: "errors",
        value: a.errors,
        unit: "responses",
        baseline: b.errors,
        target: "0",
        met: a.errors === 0,
      });
    if (!s.cacheOff) peaks.app = Math.max(peaks.app, a.peakMb);
    peaks.baseline = Math.max(peaks.baseline, b.peakMb);
  }
  rows.push(
    ...memoryRows("practices process (main.ts, default settings)", {
      idleMb: idle.app,
      baselineIdleMb: idle.baseline,
      peakMb: peaks.app,
      baselinePeakMb: peaks.baseline,
    }),
  );
  recordBenchRows(BENCH, rows);

  print();
  print(
    "| scenario | req/s | p50 ms | p99 ms | errors | server CPU µs/req | peak RSS MB | req/s ratio vs baseline above |",
  );
  print("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const [label, m, against] of printed) {
    const ratio = against ? (m.rps / against.rps).toFixed(2) : "";
    print(
      `| ${label} | ${m.rps.toFixed(0)} | ${m.p50.toFixed(1)} | ${m.p99.toFixed(1)} | ${m.errors} | ${m.cpuUs.toFixed(0)} | ${m.peakMb.toFixed(0)} | ${ratio} |`,
    );
  }
  print();
  print(
    `RSS idle after warm-up: app ${idle.app.toFixed(0)} MB (cache off: ${idle.appNoCache.toFixed(0)} MB), baseline ${idle.baseline.toFixed(0)} MB; peak under load: app ${peaks.app.toFixed(0)} MB, baseline ${peaks.baseline.toFixed(0)} MB (targets < 120 / < 200 MB)`,
  );
  print(
    "targets: app list >= 0.60 x its baseline; p99 < 100 ms (app default list, app single read)",
  );
  print(
    `load average now: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(
        " ",
      )} (other processes on this machine skew wall-clock figures; server CPU per request less so)`,
  );
} finally {
  await bare.process.stop();
  await appNoCache.stop();
  await appDefault.stop();
}
