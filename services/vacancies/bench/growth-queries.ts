/**
 * growth-bench.ts, the queries part: what each list scenario costs the source (MysqlVacancySource,
 * in this process, one request at a time) at one data size, and the plans MariaDB picks for it.
 * A cost that grows with the table or the offset shows here first, without HTTP or load.
 */
import type { LegacyDb } from "@svc/db";
import { deepPageOf, explainPlan, failed, timeOrFail, type QueryCost } from "@svc/bench";
import type { AsOf, VacancyFilter } from "../src/domain/ports.ts";
import {
  countStatement,
  marksStatement,
  MysqlVacancySource,
  pageStatement,
  type Statement,
} from "../src/source/mysql-vacancy-source.ts";
import { filterOf } from "./baseline-server.ts";

/** One list request: `deep` asks for the page at 90 % of the list (past the early walk). */
export interface ListScenario {
  name: string;
  query: string;
  deep?: boolean;
}

export const PER_PAGE = 100;
const MARK_SPACING = 250;
const EARLY_ROWS = 5_000;

export async function queryCosts(
  db: LegacyDb,
  scenarios: readonly ListScenario[],
  asOf: AsOf,
  runs: number,
  onCost: (cost: QueryCost) => void,
): Promise<QueryCost[]> {
  // Marks kept for the whole run: the page timings are of the marked walk, the marks' own read
  // is timed apart.
  const source = new MysqlVacancySource(db, "Europe/Brussels", {
    marks: { ttlMs: 3_600_000, now: Date.now },
  });
  const costs: QueryCost[] = [];
  for (const s of scenarios) {
    const params = new URLSearchParams(s.query);
    const filter = filterOf(params);
    let total = Number.NaN;
    const count = await timeOrFail(
      async () => {
        total = await source.count(filter, asOf);
      },
      Math.min(runs, 3),
    );
    if (failed(count)) total = await estimate(db, filter, asOf);
    const pageNo = s.deep ? deepPageOf(total, PER_PAGE) : 1;
    const offset = (pageNo - 1) * PER_PAGE;
    const request = { offset, limit: PER_PAGE };
    const page = await timeOrFail(() => source.page(filter, asOf, request), runs, 1);
    const marked = offset + PER_PAGE > EARLY_ROWS && filter.updatedSinceLocal === undefined;
    const marksSql = marksStatement(filter, asOf, MARK_SPACING);
    const marks = marked
      ? await timeOrFail(() => db.query(marksSql.sql, marksSql.params), Math.min(runs, 2))
      : undefined;
    const statement =
      marked && marks && !failed(marks)
        ? await markedPage(db, marksSql, filter, asOf, offset)
        : pageStatement(filter, asOf, request);
    const cost: QueryCost = {
      scenario: s.name,
      path: `/v1/vacancies?${s.query}${s.query ? "&" : ""}per_page=${PER_PAGE}&page=${pageNo}`,
      total,
      page,
      count,
      ...(marks ? { marks } : {}),
      plan: await explainPlan(db, statement.sql, statement.params),
    };
    onCost(cost);
    costs.push(cost);
  }
  return costs;
}

/** A list too slow to count: the optimizer's estimate of its driving rows, to pick a deep page. */
async function estimate(db: LegacyDb, filter: VacancyFilter, asOf: AsOf): Promise<number> {
  const s = countStatement(filter, asOf);
  const rows = await db.query<{ rows: number | string }>(`EXPLAIN ${s.sql}`, s.params);
  return Math.min(...rows.map((r) => Number(r.rows)).filter((n) => n > 0));
}

/** The statement the source runs for a marked page: from the mark at or before `offset`. */
async function markedPage(
  db: LegacyDb,
  marksSql: Statement,
  filter: VacancyFilter,
  asOf: AsOf,
  offset: number,
): Promise<Statement> {
  const marks = await db.query<{ rowKey: number }>(marksSql.sql, marksSql.params);
  const index = Math.min(marks.length - 1, Math.floor(offset / MARK_SPACING));
  const key = Number(marks[index]?.rowKey ?? 0);
  return pageStatement(
    filter,
    asOf,
    { offset: offset - index * MARK_SPACING, limit: PER_PAGE },
    { fromKey: key },
  );
}
