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
import { createLegacyDb, type LegacyDb } from "@svc/db";
import { addDays } from "@svc/legacy";
import {
  ensureGrowthData,
  GROWTH_SIZES,
  growthSizes,
  loadAverage,
  measureDetectionAndService,
  measureFeedWalk,
  queryCostPrinter,
  queryCostRows,
  recordBenchRows,
  type BenchRow,
  type GrowthService,
  type GrowthSize,
  type SweepProjection,
} from "@svc/bench";
import { build } from "@svc/build";
import { dateIn } from "@svc/time";
import { SERVICE_NAME } from "../src/config.ts";
import { MysqlVacancyFeed } from "../src/source/mysql-vacancy-feed.ts";
import { MIGRATIONS_FOLDER } from "../src/store/migrations.ts";
import { VacancyChangeSource } from "../src/workers/vacancy-change-source.ts";
import { PER_PAGE, queryCosts, type ListScenario } from "./growth-queries.ts";

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

const ensureData = (size: GrowthSize) => ensureGrowthData(args.url, size, ZONE, out);

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
    return await queryCosts(db, scenarios, { today }, RUNS, queryCostPrinter(out));
  } finally {
    await db.close();
  }
}

const serviceOf = (size: GrowthSize): GrowthService => ({
  component: "vacancies",
  entry: "services/vacancies/src/main.ts",
  scope: "vacancies:read",
  subject: `${size.label} vacancies`,
});

const detectionOf = (size: GrowthSize) => ({
  subject: `${size.label} vacancies`,
  schema: SERVICE_NAME,
  migrationsFolder: MIGRATIONS_FOLDER,
  source: (db: LegacyDb) => new VacancyChangeSource(new MysqlVacancyFeed(db, ZONE)),
});

/** The vacancy feed's sweep read, keyed by its row key. */
const feedPage = (db: LegacyDb) => {
  const feed = new MysqlVacancyFeed(db, ZONE);
  return async (after: number | null, limit: number) =>
    (await feed.live(after, limit, { today: dateIn(ZONE, Date.now()) })).map((r) => r.rowKey);
};

out(`growth bench: sizes ${SIZES.map((s) => s.name).join(", ")}; load ${loadAverage()}`);
if (!args["skip-service"]) await build();
const rows: BenchRow[] = [];
// A full sweep keeps every vacancy id it sees (UUIDs): a size whose sweep is not run is projected.
const projection: SweepProjection = { ids: (size) => size.scale * 2_000, idLength: 36 };
for (const size of SIZES) {
  const legacyUrl = await ensureData(size);
  const today = dateIn(ZONE, Date.now());
  const costs = await measureQueries(size, legacyUrl, today);
  rows.push(...queryCostRows(`${size.label} vacancies`, costs, SERVICE_QUERY_TIMEOUT_MS));
  rows.push(
    ...(await measureFeedWalk(size, `${size.label} vacancies`, legacyUrl, feedPage, DETECTION)),
  );
  if (args["skip-detection"]) continue;
  const full = SIZES_FULL.has(size.name);
  rows.push(
    ...(await measureDetectionAndService(
      size,
      legacyUrl,
      costs.map((c) => ({ name: c.scenario, path: c.path })),
      projection,
      {
        root,
        out,
        connections: CONNECTIONS,
        maxS: Number(args["max-seconds"]),
        latencyS: Number(args["latency-seconds"]),
        detection: DETECTION,
        target: detectionOf(size),
        service: serviceOf(size),
        full,
        ...(full ? {} : { smallUrl: await ensureData(GROWTH_SIZES[0]!) }),
        skipService: args["skip-service"],
        listP99Ms: LIST_P99_MS,
        perPage: PER_PAGE,
      },
    )),
  );
}
recordBenchRows(BENCH, rows);
out(`\nload average at end: ${loadAverage()}`);
