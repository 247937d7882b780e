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
 *   through one of its own full sweeps, idle, and under load.
 *
 *   npm run bench -- --only growth
 *   npm exec -c 'node services/vacancies/bench/growth-bench.ts' [-- --sizes 10k,100k --runs 20]
 *
 * Targets at 1,000,000: a list page's p99 < 100 ms, full sweep < 30 s, idle pass < 50 ms, memory
 * within the pod limit with the margin it has at 100,000. Why: docs/decisions/growth.md.
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createLegacyDb, createPgPool, runMigrations } from "@svc/db";
import { openServerConnection, seedDatabase, addDays } from "@svc/legacy";
import { createChangeDetector, type ChangeDetector } from "@svc/events";
import {
  benchMemoryLimit,
  chartMemoryLimitBytes,
  growthDatabase,
  growthSizes,
  IDLE_SETTLE_MS,
  loadAverage,
  recordBenchRows,
  round1,
  settledRss,
  startServiceUnderBench,
  summarise,
  type BenchRow,
  type GrowthSize,
} from "@svc/bench";
import { build } from "@svc/build";
import { entryArgs } from "@svc/manifest";
import { NODE_FLAGS, RUNTIME_ENV } from "@svc/runtime";
import { createTempPgDatabase, type TempDatabase } from "@svc/testing";
import { dateIn } from "@svc/time";
import { MIGRATIONS_FOLDER } from "../src/store/migrations.ts";
import { SERVICE_NAME } from "../src/config.ts";
import { MysqlVacancyFeed } from "../src/source/mysql-vacancy-feed.ts";
import { VacancyChangeSource } from "../src/workers/vacancy-change-source.ts";
import { queryCosts, type ListScenario, type QueryCost } from "./growth-queries.ts";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string" },
    runs: { type: "string", default: "20" },
    passes: { type: "string", default: "30" },
    url: { type: "string", default: "mysql://root@127.0.0.1:3306" },
    "skip-service": { type: "boolean", default: false },
    "skip-detection": { type: "boolean", default: false },
  },
});
const SIZES = growthSizes(args.sizes);
const RUNS = Number(args.runs);
const PASSES = Number(args.passes);
const BENCH = "vacancies growth";
const ZONE = "Europe/Brussels";
const root = fileURLToPath(new URL("../../..", import.meta.url));
const out = (line = "") => process.stdout.write(`${line}\n`);
const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const LIST_P99_MS = 100;
const SWEEP_S = 30;
const IDLE_PASS_MS = 50;

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
  // The service's query timeout would cut a slow plan short: measure what it costs instead.
  const db = createLegacyDb({ url: legacyUrl, queryTimeoutMs: 120_000 });
  try {
    const scenarios = scenariosFor(today, await busiestPractice(legacyUrl));
    const costs = await queryCosts(db, scenarios, { today }, RUNS);
    out(`\n[${size.name}] queries, one at a time (median/p99 ms), load ${loadAverage()}`);
    out(
      `${"scenario".padEnd(30)} ${"rows".padStart(9)} ${"page".padStart(13)} ${"count".padStart(13)} ${"marks".padStart(13)}  plan of the page`,
    );
    const ms = (t?: { median: number; p99: number }) =>
      (t ? `${t.median.toFixed(1)}/${t.p99.toFixed(1)}` : "–").padStart(13);
    for (const c of costs)
      out(
        `${c.scenario.padEnd(30)} ${String(c.total).padStart(9)} ${ms(c.page)} ${ms(c.count)} ${ms(c.marks)}  ${c.plan}`,
      );
    return costs;
  } finally {
    await db.close();
  }
}

function queryRows(size: GrowthSize, costs: QueryCost[]): BenchRow[] {
  return costs.flatMap((c) => {
    const scenario = `${size.label} vacancies: ${c.scenario}, source alone`;
    const rows: BenchRow[] = [
      { scenario, metric: "page median", value: round1(c.page.median), unit: "ms" },
      { scenario, metric: "COUNT median", value: round1(c.count.median), unit: "ms" },
    ];
    if (c.marks)
      rows.push({ scenario, metric: "page marks read", value: round1(c.marks.median), unit: "ms" });
    return rows;
  });
}

/**
 * Change detection through the public detector API, its state in a private PostgreSQL database
 * that is handed back (the service runs on it next, past its baseline).
 */
async function measureDetection(
  size: GrowthSize,
  legacyUrl: string,
): Promise<{ rows: BenchRow[]; database: TempDatabase }> {
  const database = await createTempPgDatabase("growth");
  const pool = createPgPool({ url: database.url, schema: SERVICE_NAME });
  // As the service runs it: its pool settings (main.ts) and its feed.
  const legacy = createLegacyDb({ url: legacyUrl });
  try {
    await runMigrations(pool, { schema: SERVICE_NAME, migrationsFolder: MIGRATIONS_FOLDER });
    const detector: ChangeDetector = createChangeDetector({
      pool,
      schema: SERVICE_NAME,
      source: new VacancyChangeSource(new MysqlVacancyFeed(legacy, ZONE)),
      logger: quiet,
      publicBaseUrl: "https://api.example.test",
      timeZone: ZONE,
    });
    const baseline = await detector.runSweep();
    const sweep = await detector.runSweep();
    const idle: number[] = [];
    for (let i = 0; i < PASSES; i++) idle.push((await detector.runIncremental()).durationMs);
    const passes = summarise(idle);
    out(
      `\n[${size.name}] change detection: baseline ${(baseline.durationMs / 1000).toFixed(1)} s (${baseline.examined} examined), full sweep ${(sweep.durationMs / 1000).toFixed(1)} s (${sweep.updated} updated), idle pass median ${passes.median.toFixed(1)} ms, p99 ${passes.p99.toFixed(1)} ms; load ${loadAverage()}`,
    );
    const scenario = `${size.label} vacancies: change detection`;
    const last = size.name === "1m";
    const rows: BenchRow[] = [
      { scenario, metric: "baseline sweep", value: round1(baseline.durationMs / 1000), unit: "s" },
      {
        scenario,
        metric: "full sweep, nothing changed",
        value: round1(sweep.durationMs / 1000),
        unit: "s",
        ...(last ? { target: `< ${SWEEP_S} s`, met: sweep.durationMs < SWEEP_S * 1000 } : {}),
      },
      {
        scenario,
        metric: `idle incremental pass p99 (${PASSES})`,
        value: round1(passes.p99),
        unit: "ms",
        ...(last ? { target: `< ${IDLE_PASS_MS} ms`, met: passes.p99 < IDLE_PASS_MS } : {}),
      },
    ];
    return { rows, database };
  } catch (err) {
    await database.drop();
    throw err;
  } finally {
    await legacy.close();
    await pool.end();
  }
}

interface ServiceMemory {
  sweepPeakMb: number;
  sweepMs: number;
  idleMb: number;
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
): Promise<ServiceMemory> {
  const sweeping = await startService(legacyUrl, databaseUrl, { DETECTOR_SWEEP_MS: "1000" });
  let sweepPeakMb: number;
  let sweepMs: number;
  try {
    const done = await sweeping.process.waitForLine(/change detection pass done/, 3_600_000);
    sweepPeakMb = sweeping.process.memory.peak();
    sweepMs = Number(/"durationMs":(\d+)/.exec(done)?.[1] ?? NaN);
  } finally {
    await sweeping.stop();
  }
  const service = await startService(legacyUrl, databaseUrl);
  try {
    const idleMb = await settledRss(service.process.pid, { settleMs: IDLE_SETTLE_MS });
    out(
      `\n[${size.name}] service: its full sweep ${(sweepMs / 1000).toFixed(1)} s, peak RSS ${sweepPeakMb.toFixed(0)} MB; idle RSS ${idleMb.toFixed(0)} MB; load ${loadAverage()}`,
    );
    return { sweepPeakMb, sweepMs, idleMb };
  } finally {
    await service.stop();
  }
}

function memoryRows(size: GrowthSize, m: ServiceMemory, marginAt100k?: number): BenchRow[] {
  const limitMb = chartMemoryLimitBytes("vacancies") / 2 ** 20;
  const margin = limitMb - m.sweepPeakMb;
  const scenario = `${size.label} vacancies: service`;
  const keepsMargin = marginAt100k === undefined || size.name !== "1m";
  return [
    {
      scenario,
      metric: "peak RSS, start-up and a full sweep",
      value: Math.round(m.sweepPeakMb),
      unit: "MB",
      target: keepsMargin
        ? `< ${limitMb} MB (pod limit)`
        : `margin to ${limitMb} MB ≥ ${Math.round(marginAt100k)} MB (as at 100,000)`,
      met: keepsMargin ? margin > 0 : margin >= marginAt100k,
    },
    { scenario, metric: "idle RSS", value: Math.round(m.idleMb), unit: "MB" },
    { scenario, metric: "its full sweep", value: round1(m.sweepMs / 1000), unit: "s" },
  ];
}

out(`growth bench: sizes ${SIZES.map((s) => s.name).join(", ")}; load ${loadAverage()}`);
if (!args["skip-service"]) await build();
const rows: BenchRow[] = [];
let marginAt100k: number | undefined;
for (const size of SIZES) {
  const legacyUrl = await ensureData(size);
  const today = dateIn(ZONE, Date.now());
  rows.push(...queryRows(size, await measureQueries(size, legacyUrl, today)));
  if (args["skip-detection"]) continue;
  const detection = await measureDetection(size, legacyUrl);
  rows.push(...detection.rows);
  try {
    if (!args["skip-service"]) {
      const memory = await measureService(size, legacyUrl, detection.database.url);
      const limitMb = chartMemoryLimitBytes("vacancies") / 2 ** 20;
      if (size.name === "100k") marginAt100k = limitMb - memory.sweepPeakMb;
      rows.push(...memoryRows(size, memory, marginAt100k));
    }
  } finally {
    await detection.database.drop();
  }
}
recordBenchRows(BENCH, rows);
out(`\nload average at end: ${loadAverage()}`);
void LIST_P99_MS;
