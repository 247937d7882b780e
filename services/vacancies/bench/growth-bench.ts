/**
 * Growth benchmark: how the vacancies service's costs grow with the data, at 10,000, 100,000 and
 * 1,000,000 vacancies (practices in proportion), each size its own legacy database
 * (legacy_growth_10k / _100k / _1m), seeded once and kept.
 *
 * Per size:
 * - queries: each list scenario's page, COUNT and page-mark read through the source, one at a time,
 *   and the plan MariaDB picks (growth-queries.ts);
 * - change detection through the public detector API (@svc/events createChangeDetector) over the
 *   real vacancy feed, its state in a private PostgreSQL database: the baseline sweep, a full sweep
 *   with nothing changed, and idle incremental passes;
 * - the service itself (its production bundle, under its pod memory limit) on that state: RSS
 *   through one of its own full sweeps, idle, and under list load (wrk for each list's maximum,
 *   the open-loop generator at half of it for p99: growth-load.ts).
 * Past --full-detection-up-to (default 100k) a baseline and a sweep take too long to run on every
 * bench: the size gets the feed's walking rate (which the sweep's time follows), idle passes on a
 * state baselined from the 10k data, and its sweep memory projected from the largest size swept.
 *
 *   npm run bench -- --only growth
 *   npm exec -c 'node services/vacancies/bench/growth-bench.ts' [-- --sizes 10k,100k --runs 20]
 *
 * Targets at 1,000,000: a list page's p99 < 100 ms at half its maximum, full sweep < 30 s, idle
 * pass < 50 ms, memory within the pod limit; every source query under the service's 5 s query
 * timeout. Why: docs/decisions/growth.md.
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createLegacyDb } from "@svc/db";
import { openServerConnection, seedDatabase, addDays } from "@svc/legacy";
import {
  benchMemoryLimit,
  chartMemoryLimitBytes,
  growthDatabase,
  GROWTH_SIZES,
  growthSizes,
  IDLE_SETTLE_MS,
  loadAverage,
  recordBenchRows,
  round1,
  settledRss,
  startServiceUnderBench,
  type BenchRow,
  type GrowthSize,
  type Timing,
} from "@svc/bench";
import { build } from "@svc/build";
import { entryArgs } from "@svc/manifest";
import { NODE_FLAGS, RUNTIME_ENV } from "@svc/runtime";
import { dateIn } from "@svc/time";
import { measureDetection, measureFeedWalk } from "./growth-detection.ts";
import { failed, queryCosts, type ListScenario, type QueryCost } from "./growth-queries.ts";
import {
  loadRows,
  loadScenarios,
  printLoad,
  type LoadResult,
  type LoadScenario,
} from "./growth-load.ts";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string" },
    runs: { type: "string", default: "20" },
    passes: { type: "string", default: "30" },
    url: { type: "string", default: "mysql://root@127.0.0.1:3306" },
    "skip-service": { type: "boolean", default: false },
    "skip-detection": { type: "boolean", default: false },
    "full-detection-up-to": { type: "string", default: "100k" },
    "max-seconds": { type: "string", default: "3" },
    "latency-seconds": { type: "string", default: "6" },
  },
});
const SIZES = growthSizes(args.sizes);
const RUNS = Number(args.runs);
const PASSES = Number(args.passes);
const FULL_UP_TO = GROWTH_SIZES.findIndex((s) => s.name === args["full-detection-up-to"]);
const SIZES_FULL = new Set(GROWTH_SIZES.slice(0, FULL_UP_TO + 1).map((s) => s.name));
const BENCH = "vacancies growth";
const ZONE = "Europe/Brussels";
const root = fileURLToPath(new URL("../../..", import.meta.url));
const out = (line = "") => process.stdout.write(`${line}\n`);
const LIST_P99_MS = 100;
const CONNECTIONS = 16;
const QUERY_CAP_MS = 30_000;
/** The service's LEGACY_QUERY_TIMEOUT_MS default: a step slower fails its request with 503. */
const SERVICE_QUERY_TIMEOUT_MS = 5_000;
const DETECTION = {
  zone: ZONE,
  passes: PASSES,
  sweepTargetS: 30,
  idlePassTargetMs: 50,
  out,
};

async function ensureData(size: GrowthSize): Promise<string> {
  const connection = await openServerConnection(args.url);
  const database = growthDatabase(size);
  try {
    const options = { seed: 1, scale: size.scale, today: dateIn(ZONE, Date.now()) };
    let result = await seedDatabase(connection, database, options, "if-absent", out);
    if (result.options.scale !== size.scale)
      result = await seedDatabase(connection, database, options, "replace", out);
    out(
      `data: ${database} ${result.action} (scale ${result.options.scale}, today ${result.options.today})`,
    );
  } finally {
    await connection.end();
  }
  const url = new URL(args.url);
  url.pathname = `/${database}`;
  return url.toString();
}

function scenariosFor(today: string, practice: string): ListScenario[] {
  return [
    { name: "list page 1", query: "" },
    { name: "list deep page", query: "", deep: true },
    { name: "province", query: "province=ANT" },
    { name: "province, deep page", query: "province=ANT", deep: true },
    { name: "language+published", query: "language=nl&published=true" },
    { name: "position+status", query: "position=TAS&status=created" },
    { name: "published=true", query: "published=true" },
    { name: "published=true, deep page", query: "published=true", deep: true },
    { name: "published=false", query: "published=false" },
    { name: "practice", query: `practice=${encodeURIComponent(practice)}` },
    { name: "updated_since 7 days", query: `updated_since=${addDays(today, -7)}` },
    {
      name: "updated_since 7 days, deep",
      query: `updated_since=${addDays(today, -7)}`,
      deep: true,
    },
    {
      name: "updated_since 90 days+published",
      query: `updated_since=${addDays(today, -90)}&published=true`,
    },
  ];
}

/** The practice with the most vacancies: the widest practice filter. */
async function busiestPractice(legacyUrl: string): Promise<string> {
  const db = createLegacyDb({ url: legacyUrl, queryTimeoutMs: 120_000 });
  try {
    const [row] = await db.query<{ ref: string }>(
      "SELECT praktijk_ref AS ref FROM tbl_vacature WHERE verwijderd = 0 AND praktijk_ref IS NOT NULL GROUP BY praktijk_ref ORDER BY COUNT(*) DESC LIMIT 1",
    );
    return row?.ref ?? "";
  } finally {
    await db.close();
  }
}

async function measureQueries(size: GrowthSize, legacyUrl: string, today: string) {
  // Past the service's own query timeout, to see what a slow plan costs; a step slower than this
  // is recorded as failed.
  const db = createLegacyDb({ url: legacyUrl, queryTimeoutMs: QUERY_CAP_MS });
  try {
    const scenarios = scenariosFor(today, await busiestPractice(legacyUrl));
    out(`\n[${size.name}] queries, one at a time (median/p99 ms; ! failed), load ${loadAverage()}`);
    out(
      `${"scenario".padEnd(32)} ${"rows".padStart(9)} ${"page".padStart(13)} ${"count".padStart(13)} ${"marks".padStart(13)}  plan of the page`,
    );
    const ms = (t?: Timing) =>
      (t ? `${failed(t) ? "!" : ""}${t.median.toFixed(1)}/${t.p99.toFixed(1)}` : "–").padStart(13);
    return await queryCosts(db, scenarios, { today }, RUNS, (c) =>
      out(
        `${c.scenario.padEnd(32)} ${String(c.total).padStart(9)} ${ms(c.page)} ${ms(c.count)} ${ms(c.marks)}  ${c.plan}`,
      ),
    );
  } finally {
    await db.close();
  }
}

function queryRows(size: GrowthSize, costs: QueryCost[]): BenchRow[] {
  const within = (t: Timing) => !failed(t) && t.p99 < SERVICE_QUERY_TIMEOUT_MS;
  const row = (scenario: string, metric: string, t: Timing): BenchRow => ({
    scenario,
    metric: failed(t) ? `${metric} (failed after)` : metric,
    value: round1(t.median),
    unit: "ms",
    target: `< ${SERVICE_QUERY_TIMEOUT_MS} ms (query timeout)`,
    met: within(t),
  });
  return costs.flatMap((c) => {
    const scenario = `${size.label} vacancies: ${c.scenario}, source alone`;
    const rows = [row(scenario, "page median", c.page), row(scenario, "COUNT median", c.count)];
    if (c.marks) rows.push(row(scenario, "page marks read", c.marks));
    return rows;
  });
}

interface ServiceMemory {
  sweepPeakMb: number;
  sweepMs: number;
  idleMb: number;
  load: LoadResult[];
}

/** The service as deployed, on the detection state `databaseUrl` holds. */
function startService(legacyUrl: string, databaseUrl: string, env: Record<string, string> = {}) {
  return startServiceUnderBench({
    root,
    entry: "services/vacancies/src/main.ts",
    args: [...NODE_FLAGS, ...entryArgs("services/vacancies/src/main.ts", { from: "bundle" })],
    env: { ...RUNTIME_ENV, LEGACY_DATABASE_URL: legacyUrl, DATABASE_URL: databaseUrl, ...env },
    ...benchMemoryLimit("vacancies"),
    keep: /change detection pass done/,
  });
}

/**
 * RSS through one of its own full sweeps (due at once: DETECTOR_SWEEP_MS at its minimum), then,
 * restarted with its default schedule (the sweep just done is not due again), idle.
 */
async function measureService(
  size: GrowthSize,
  legacyUrl: string,
  databaseUrl: string,
  scenarios: readonly LoadScenario[],
  sweep: boolean,
): Promise<ServiceMemory> {
  let sweepPeakMb = Number.NaN;
  let sweepMs = Number.NaN;
  if (sweep) {
    const sweeping = await startService(legacyUrl, databaseUrl, { DETECTOR_SWEEP_MS: "1000" });
    try {
      const done = await sweeping.process.waitForLine(/change detection pass done/, 3_600_000);
      sweepPeakMb = sweeping.process.memory.peak();
      sweepMs = Number(/"durationMs":(\d+)/.exec(done)?.[1] ?? NaN);
    } finally {
      await sweeping.stop();
    }
  }
  const service = await startService(legacyUrl, databaseUrl);
  try {
    const idleMb = await settledRss(service.process.pid, { settleMs: IDLE_SETTLE_MS });
    out(
      `\n[${size.name}] service: its full sweep ${(sweepMs / 1000).toFixed(1)} s, peak RSS ${sweepPeakMb.toFixed(0)} MB; idle RSS ${idleMb.toFixed(0)} MB; load ${loadAverage()}`,
    );
    const token = await service.mint({ scope: "vacancies:read" });
    const load = await loadScenarios(service, token, scenarios, {
      connections: CONNECTIONS,
      maxS: Number(args["max-seconds"]),
      latencyS: Number(args["latency-seconds"]),
    });
    out(`\n[${size.name}] lists under load (ms), load ${loadAverage()}`);
    printLoad(out, load);
    return { sweepPeakMb, sweepMs, idleMb, load };
  } finally {
    await service.stop();
  }
}

/**
 * What a full sweep's set of seen ids (engine.ts keeps every id a sweep yields) takes on the heap
 * for `n` vacancies (MB): a size whose own sweep is not run is projected with it.
 */
function idSetMb(n: number): number {
  // Flat one-byte strings, as the driver decodes them, cut from one buffer so little else is
  // allocated while the heap is measured.
  const text = Buffer.alloc(36 * n);
  for (let i = 0; i < n; i++)
    text.write(`00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, i * 36, "latin1");
  const before = process.memoryUsage().heapUsed;
  const ids = new Set<string>();
  for (let i = 0; i < n; i++) ids.add(text.toString("latin1", i * 36, i * 36 + 36));
  return ids.size > 0 ? (process.memoryUsage().heapUsed - before) / 2 ** 20 : 0;
}

function memoryRows(
  size: GrowthSize,
  m: ServiceMemory,
  measured?: { size: GrowthSize; sweepPeakMb: number },
): BenchRow[] {
  const limitMb = chartMemoryLimitBytes("vacancies") / 2 ** 20;
  const scenario = `${size.label} vacancies: service`;
  const loadPeak = Math.max(0, ...m.load.map((l) => l.peakMb));
  const rows: BenchRow[] = [
    { scenario, metric: "idle RSS", value: Math.round(m.idleMb), unit: "MB" },
    {
      scenario,
      metric: "peak RSS under list load",
      value: Math.round(loadPeak),
      unit: "MB",
      target: `< ${limitMb} MB (pod limit)`,
      met: loadPeak < limitMb,
    },
  ];
  const margin = (peak: number) => `${Math.round(limitMb - peak)} MB below the ${limitMb} MB limit`;
  if (!Number.isNaN(m.sweepPeakMb)) {
    out(`[${size.name}] through its own full sweep: ${margin(m.sweepPeakMb)}`);
    rows.push(
      {
        scenario,
        metric: "peak RSS, start-up and its full sweep",
        value: Math.round(m.sweepPeakMb),
        unit: "MB",
        target: `< ${limitMb} MB (pod limit)`,
        met: m.sweepPeakMb < limitMb,
      },
      { scenario, metric: "its full sweep", value: round1(m.sweepMs / 1000), unit: "s" },
    );
  } else if (measured) {
    const growth = idSetMb(size.scale * 2_000) - idSetMb(measured.size.scale * 2_000);
    const projected = measured.sweepPeakMb + growth;
    out(
      `[${size.name}] projected through a full sweep: ${measured.size.name}'s peak + ${growth.toFixed(0)} MB of seen ids = ${projected.toFixed(0)} MB, ${margin(projected)}`,
    );
    rows.push({
      scenario,
      metric: `peak RSS through a full sweep (projected from ${measured.size.label})`,
      value: Math.round(projected),
      unit: "MB",
      target: `< ${limitMb} MB (pod limit)`,
      met: projected < limitMb,
    });
  }
  return rows;
}

out(`growth bench: sizes ${SIZES.map((s) => s.name).join(", ")}; load ${loadAverage()}`);
if (!args["skip-service"]) await build();
const rows: BenchRow[] = [];
let measuredSweep: { size: GrowthSize; sweepPeakMb: number } | undefined;
for (const size of SIZES) {
  const legacyUrl = await ensureData(size);
  const today = dateIn(ZONE, Date.now());
  const costs = await measureQueries(size, legacyUrl, today);
  rows.push(...queryRows(size, costs));
  rows.push(...(await measureFeedWalk(size, legacyUrl, DETECTION)));
  if (args["skip-detection"]) continue;
  const full = SIZES_FULL.has(size.name);
  const detection = await measureDetection(
    size,
    legacyUrl,
    DETECTION,
    full ? undefined : await ensureData(GROWTH_SIZES[0]!),
  );
  rows.push(...detection.rows);
  try {
    if (!args["skip-service"]) {
      const memory = await measureService(
        size,
        legacyUrl,
        detection.database.url,
        costs.map((c) => ({ name: c.scenario, path: c.path })),
        full,
      );
      rows.push(...loadRows(size.label, memory.load, LIST_P99_MS));
      rows.push(...memoryRows(size, memory, measuredSweep));
      if (!Number.isNaN(memory.sweepPeakMb))
        measuredSweep = { size, sweepPeakMb: memory.sweepPeakMb };
    }
  } finally {
    await detection.database.drop();
  }
}
recordBenchRows(BENCH, rows);
out(`\nload average at end: ${loadAverage()}`);
