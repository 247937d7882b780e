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
 *   the open-loop generator at half of it for p99). The run and its parts are @svc/bench
 *   growth-*.ts, shared with the practices growth bench.
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
import type { LegacyDb } from "@svc/db";
import { addDays } from "@svc/sandbox";
import { GROWTH_ZONE, runGrowthBench } from "@svc/bench";
import { dateIn } from "@svc/time";
import { SERVICE_NAME } from "../src/config.ts";
import { MysqlVacancyFeed } from "../src/source/mysql-vacancy-feed.ts";
import { MIGRATIONS_FOLDER } from "../src/store/migrations.ts";
import { VacancyChangeSource } from "../src/workers/vacancy-change-source.ts";
import { PER_PAGE, queryCosts, type ListScenario } from "./growth-queries.ts";

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
async function busiestPractice(db: LegacyDb): Promise<string> {
  const [row] = await db.query<{ ref: string }>(
    "SELECT praktijk_ref AS ref FROM tbl_vacature WHERE verwijderd = 0 AND praktijk_ref IS NOT NULL GROUP BY praktijk_ref ORDER BY COUNT(*) DESC LIMIT 1",
  );
  return row?.ref ?? "";
}

await runGrowthBench({
  bench: "vacancies growth",
  subjectOf: (size) => `${size.label} vacancies`,
  component: "vacancies",
  entry: "services/vacancies/src/main.ts",
  scope: "vacancies:read",
  schema: SERVICE_NAME,
  migrationsFolder: MIGRATIONS_FOLDER,
  source: (db) => new VacancyChangeSource(new MysqlVacancyFeed(db, GROWTH_ZONE)),
  // The sweep's read, keyed by the feed's row key.
  feedPage: (db) => {
    const feed = new MysqlVacancyFeed(db, GROWTH_ZONE);
    return async (after: number | null, limit: number) =>
      (await feed.live(after, limit, { today: dateIn(GROWTH_ZONE, Date.now()) })).map(
        (r) => r.rowKey,
      );
  },
  queryCosts: async (db, today, runs, onCost) =>
    queryCosts(db, scenariosFor(today, await busiestPractice(db)), { today }, runs, onCost),
  perPage: PER_PAGE,
  // The loader's 2,000 vacancies per unit of scale; ids are UUIDs.
  idsPerScale: 2_000,
  idLength: 36,
  // Past 100,000 a baseline and a sweep take tens of minutes (docs/decisions/growth.md).
  fullDetectionUpTo: "1m",
});
