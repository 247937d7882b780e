/**
 * Growth benchmark of the practices service: how its costs grow with the data, on the growth data
 * sets of 10,000, 100,000 and 1,000,000 vacancies (legacy_growth_10k / _100k / _1m, practices in
 * proportion: about 2,100, 21,000 and 210,000 in both sources), seeded once and kept. The shared
 * parts are @svc/bench growth-*.ts, as for the vacancies growth bench.
 *
 * Per size:
 * - queries: each list scenario's page, COUNT and page-mark read through the source, one at a time,
 *   and the plan MariaDB picks for the page (growth-queries.ts);
 * - change detection through the public detector API (@svc/events createChangeDetector) over the
 *   real practice feed, its state in a private PostgreSQL database: the baseline sweep, a full
 *   sweep with nothing changed, and idle incremental passes;
 * - the service itself (its production bundle, under its pod memory limit) on that state: RSS
 *   through one of its own full sweeps, idle, and under list load (wrk for each list's maximum,
 *   the open-loop generator at half of it for p99).
 * Past --full-detection-up-to (default 100k) the size gets the feed's walking rate, idle passes on
 * a state baselined from the 10k data, and its sweep memory projected from the largest size swept.
 *
 *   npm run bench -- --only growth
 *   npm exec -c 'node services/practices/bench/growth-bench.ts' [-- --sizes 10k,100k --runs 20]
 *
 * Targets at 1,000,000 vacancies: a list page's p99 < 100 ms at half its maximum, full sweep
 * < 30 s, idle pass < 50 ms, memory within the pod limit; every source query under the service's
 * 5 s query timeout. Why: docs/decisions/growth.md.
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createLegacyDb, type LegacyDb } from "@svc/db";
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
import { MysqlPracticeFeed } from "../src/source/mysql-practice-feed.ts";
import { MIGRATIONS_FOLDER } from "../src/store/migrations.ts";
import { PracticeChangeSource } from "../src/workers/practice-change-source.ts";
import { PER_PAGE, practiceQueryCosts, type PracticeListScenario } from "./growth-queries.ts";

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
const FULL_UP_TO = GROWTH_SIZES.findIndex((s) => s.name === args["full-detection-up-to"]);
const SIZES_FULL = new Set(GROWTH_SIZES.slice(0, FULL_UP_TO + 1).map((s) => s.name));
const BENCH = "practices growth";
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
  passes: Number(args.passes),
  sweepTargetS: 30,
  idlePassTargetMs: 50,
  out,
};

const ensureData = (size: GrowthSize) => ensureGrowthData(args.url, size, ZONE, out);
const subjectOf = (size: GrowthSize) => `practices at ${size.label} vacancies`;

/** Every list filter of GET /v1/practices, alone and with another, and deep pages. */
function scenariosFor(province: string, name: string): PracticeListScenario[] {
  return [
    { name: "list page 1", filters: {} },
    { name: "list deep page", filters: {}, deep: true },
    { name: "active=true", filters: { active: true } },
    { name: "active=true, deep page", filters: { active: true }, deep: true },
    { name: "active=false", filters: { active: false } },
    { name: "visible=true", filters: { visible: true } },
    { name: "visible=false", filters: { visible: false } },
    { name: "language=nl", filters: { language: "nl" } },
    { name: "language=fr, deep page", filters: { language: "fr" }, deep: true },
    { name: "province", filters: { province } },
    { name: "province, deep page", filters: { province }, deep: true },
    { name: "active=false+language=fr", filters: { active: false, language: "fr" } },
    { name: "search (exact name)", filters: { search: name } },
  ];
}

/** The province most CRM records hold (the widest province filter), and a name some practice has. */
async function filterValues(db: LegacyDb): Promise<{ province: string; name: string }> {
  const [province] = await db.query<{ v: string }>(
    "SELECT provincie AS v FROM crm_bedrijf WHERE provincie IS NOT NULL AND provincie <> '' GROUP BY provincie ORDER BY COUNT(*) DESC LIMIT 1",
  );
  const [name] = await db.query<{ v: string }>(
    "SELECT naam AS v FROM crm_bedrijf WHERE naam IS NOT NULL AND naam <> '' ORDER BY crm_id LIMIT 1",
  );
  return { province: province?.v ?? "", name: name?.v ?? "" };
}

async function measureQueries(size: GrowthSize, legacyUrl: string, today: string) {
  // Past the service's own query timeout, to see what a slow plan costs; a step slower than this
  // is recorded as failed.
  const db = createLegacyDb({ url: legacyUrl, queryTimeoutMs: QUERY_CAP_MS });
  try {
    const { province, name } = await filterValues(db);
    out(
      `\n[${size.name}] practice queries, one at a time (median/p99 ms; ! failed), load ${loadAverage()}`,
    );
    return await practiceQueryCosts(
      db,
      scenariosFor(province, name),
      today,
      RUNS,
      queryCostPrinter(out),
    );
  } finally {
    await db.close();
  }
}

const serviceOf = (size: GrowthSize): GrowthService => ({
  component: "practices",
  entry: "services/practices/src/main.ts",
  scope: "practices:read",
  subject: subjectOf(size),
});

const detectionOf = (size: GrowthSize) => ({
  subject: subjectOf(size),
  schema: SERVICE_NAME,
  migrationsFolder: MIGRATIONS_FOLDER,
  source: (db: LegacyDb) => new PracticeChangeSource(new MysqlPracticeFeed(db)),
});

/** The practice feed's sweep read, keyed by practice id. */
const feedPage = (db: LegacyDb) => {
  const feed = new MysqlPracticeFeed(db);
  return async (after: string | null, limit: number) =>
    (await feed.live(after, limit, dateIn(ZONE, Date.now()))).map((e) => e.practice.practice_id);
};

out(`practices growth bench: sizes ${SIZES.map((s) => s.name).join(", ")}; load ${loadAverage()}`);
if (!args["skip-service"]) await build();
const rows: BenchRow[] = [];
// A full sweep keeps every practice id it sees: a size whose sweep is not run is projected.
// The loader makes 300 + 120 practices per unit of scale.
const projection: SweepProjection = { ids: (size) => size.scale * 420, idLength: 36 };
for (const size of SIZES) {
  const legacyUrl = await ensureData(size);
  const today = dateIn(ZONE, Date.now());
  const costs = await measureQueries(size, legacyUrl, today);
  rows.push(...queryCostRows(subjectOf(size), costs, SERVICE_QUERY_TIMEOUT_MS));
  rows.push(...(await measureFeedWalk(size, subjectOf(size), legacyUrl, feedPage, DETECTION)));
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
