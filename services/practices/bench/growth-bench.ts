/**
 * Growth benchmark of the practices service: how its costs grow with the data, on the growth data
 * sets of 10,000, 100,000 and 1,000,000 vacancies (legacy_growth_10k / _100k / _1m, practices in
 * proportion: about 2,100, 21,000 and 210,000 in both sources), seeded once and kept. The run and
 * its parts are @svc/bench growth-*.ts, shared with the vacancies growth bench.
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
 * Every size is swept by default (its sweep at 1m takes under a minute); past --full-detection-up-to
 * a size gets the feed's walking rate, idle passes on a state baselined from the 10k data, and its
 * sweep memory projected from the largest size swept.
 *
 *   npm run bench -- --only growth
 *   npm exec -c 'node services/practices/bench/growth-bench.ts' [-- --sizes 10k,100k --runs 20]
 *
 * Targets at 1,000,000 vacancies: a list page's p99 < 100 ms at half its maximum, full sweep
 * < 30 s, idle pass < 50 ms, memory within the pod limit; every source query under the service's
 * 5 s query timeout. Why: docs/decisions/growth.md.
 */
import type { LegacyDb } from "@svc/db";
import { GROWTH_ZONE, runGrowthBench } from "@svc/bench";
import { dateIn } from "@svc/time";
import { SERVICE_NAME } from "../src/config.ts";
import { MysqlPracticeFeed } from "../src/source/mysql-practice-feed.ts";
import { MIGRATIONS_FOLDER } from "../src/store/migrations.ts";
import { PracticeChangeSource } from "../src/workers/practice-change-source.ts";
import { PER_PAGE, practiceQueryCosts, type PracticeListScenario } from "./growth-queries.ts";

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

await runGrowthBench({
  bench: "practices growth",
  subjectOf: (size) => `practices at ${size.label} vacancies`,
  component: "practices",
  entry: "services/practices/src/main.ts",
  scope: "practices:read",
  schema: SERVICE_NAME,
  migrationsFolder: MIGRATIONS_FOLDER,
  source: (db) => new PracticeChangeSource(new MysqlPracticeFeed(db)),
  // The sweep's read, keyed by practice id.
  feedPage: (db) => {
    const feed = new MysqlPracticeFeed(db);
    return async (after: string | null, limit: number) =>
      (await feed.live(after, limit, dateIn(GROWTH_ZONE, Date.now()))).map(
        (e) => e.practice.practice_id,
      );
  },
  queryCosts: async (db, today, runs, onCost) => {
    const { province, name } = await filterValues(db);
    return practiceQueryCosts(db, scenariosFor(province, name), today, runs, onCost);
  },
  perPage: PER_PAGE,
  // The loader's 300 + 120 practices per unit of scale.
  idsPerScale: 420,
  idLength: 36,
  // Its sweep at a million vacancies takes under a minute: every size is swept.
  fullDetectionUpTo: "1m",
});
