/**
 * Practice reads at benchmark scale, against a bare baseline measured in the same run by the same
 * generators: wrk for each one's maximum throughput (32 connections, closed loop), then the
 * open-loop generator at 50 % and 80 % of the service's own maximum, to both at the same rates,
 * for p50/p99/p99.9 (@svc/bench read-load.ts). Neither generator runs in Node.
 *
 *   npm exec -c 'node services/practices/bench/read-bench.ts' \
 *     [-- --seconds 5 --open-seconds 5 --connections 32 --only single --node-args="…"]
 *
 * Uses the `legacy_bench` database, seeded with scale 50 through the generator's own guard and
 * lock only when absent (another service's bench may have made it already; it is then kept).
 * The service is its real entry point (the bundle of src/main.ts) in its own process, launched as
 * in production (@svc/runtime's NODE_FLAGS), twice: as configured by default (5 s totals and
 * page-marks caches) and with both off; the baseline (baseline-process.ts) is its own process too.
 * Each one's RSS is read from /proc: idle after start-up and warm-up, and the peak while loaded.
 * This process only generates load.
 *
 * Targets: list ≥ 60% of the baseline's throughput; at 50 % of the maximum, p99 < 50 ms (list,
 * caches on) and < 5 ms (single read); RSS < 120 MB idle and < 200 MB under load.
 */
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { brusselsDate, openServerConnection, seedDatabase } from "@svc/sandbox";
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
  type ReadTargets,
  type ServiceUnderBench,
  benchMemoryLimit,
} from "@svc/bench";
import { build } from "@svc/build";
import { entryArgs } from "@svc/manifest";
import { NODE_FLAGS, RUNTIME_ENV } from "@svc/runtime";

const { values: args } = parseArgs({
  options: {
    url: { type: "string", default: "mysql://root@127.0.0.1:3306" },
    seconds: { type: "string", default: "5" },
    "open-seconds": { type: "string", default: "5" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "32" },
    "node-args": { type: "string" },
    only: { type: "string" },
  },
});
const SECONDS = Number(args.seconds);
const OPEN_SECONDS = Number(args["open-seconds"]);
const WARMUP = Number(args.warmup);
const CONNECTIONS = Number(args.connections);
const NODE_ARGS =
  args["node-args"] === undefined ? [...NODE_FLAGS] : args["node-args"].split(" ").filter(Boolean);
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

interface Target {
  process: BenchProcess;
  origin: string;
  path: (i: number) => string;
  headers: Record<string, string>;
}

/** What a generator sends to `target`: its first `n` paths, in turn. */
function readTarget(target: Target, n: number): ReadTarget {
  return {
    origin: target.origin,
    headers: target.headers,
    paths: [...new Set(Array.from({ length: n }, (_, i) => target.path(i)))],
    process: target.process,
  };
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
  const line = await proc.waitForLine(/^\{"port"/, 120_000);
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
  `practices read bench: ${DATABASE} (scale ${data.scale}, today ${data.today}), ${CONNECTIONS} connections, ${WARMUP}s warm-up; per scenario wrk ${SECONDS}s per target, then open loop ${OPEN_SECONDS}s per target at 50% and 80% of the app's maximum`,
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
  const reads = scenarios
    .filter((s) => !args.only || s.key.includes(args.only))
    .map((s) => ({
      ...s,
      baseRead: readTarget(s.baseTarget, ids.length),
      appRead: readTarget(s.appTarget, ids.length),
    }));
  // Warm-up of every server (JIT, pools), then idle RSS once settled.
  for (const s of reads) {
    for (const target of [s.baseRead, s.appRead])
      await maxThroughput(target, { connections: CONNECTIONS, seconds: WARMUP });
  }
  await new Promise((r) => setTimeout(r, 3_000));
  const settled = (pid: number) => settledRss(pid, { settleMs: IDLE_SETTLE_MS });
  const [appIdle, appNoCacheIdle, baselineIdle] = await Promise.all([
    settled(appDefault.process.pid),
    settled(appNoCache.process.pid),
    settled(bare.process.pid),
  ]);
  const idle = { app: appIdle, appNoCache: appNoCacheIdle, baseline: baselineIdle };

  const rows: BenchRow[] = [];
  const peaks = { app: 0, baseline: 0 };
  for (const s of reads) {
    const result = await measureReadScenario(s.appRead, s.baseRead, {
      connections: CONNECTIONS,
      maxSeconds: SECONDS,
      openSeconds: OPEN_SECONDS,
    });
    print(`${s.app} (baseline: ${s.base.replace(/^baseline\s+/, "")})`);
    for (const line of readScenarioLines("", result)) print(line);
    const targets: ReadTargets = s.single
      ? { p99Ms: 5 }
      : s.cacheOff
        ? { throughputShare: 0.6 }
        : { throughputShare: 0.6, p99Ms: 50 };
    rows.push(...readScenarioRows(s.key, result, targets));
    if (!s.cacheOff) peaks.app = Math.max(peaks.app, result.peakMb.service);
    peaks.baseline = Math.max(peaks.baseline, result.peakMb.baseline);
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
    `RSS idle after warm-up: app ${idle.app.toFixed(0)} MB (cache off: ${idle.appNoCache.toFixed(0)} MB), baseline ${idle.baseline.toFixed(0)} MB; peak under load: app ${peaks.app.toFixed(0)} MB, baseline ${peaks.baseline.toFixed(0)} MB (targets < 120 / < 200 MB)`,
  );
  print(
    "targets: app list >= 0.60 x its baseline; at 50% of the maximum p99 < 50 ms (app default list) and < 5 ms (single read)",
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
