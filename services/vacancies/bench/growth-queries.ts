/**
 * growth-bench.ts, the queries part: what each list scenario costs the source (MysqlVacancySource,
 * in this process, one request at a time) at one data size, and the plans MariaDB picks for it.
 * A cost that grows with the table or the offset shows here first, without HTTP or load.
 */
import type { LegacyDb } from "@svc/db";
import { timeRuns, type Timing } from "@svc/bench";
import type { AsOf, VacancyFilter } from "../src/domain/ports.ts";
import {
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

export interface QueryCost {
  scenario: string;
  /** The path the HTTP part sends (page number resolved for deep pages). */
  path: string;
  total: number;
  page: Timing;
  count: Timing;
  /** Reading the list's page marks (deep pages that walk from a mark). */
  marks?: Timing;
  /** EXPLAIN of the page statement: table:access:index(rows estimate) per step. */
  plan: string;
}

const PER_PAGE = 100;
const MARK_SPACING = 250;
const EARLY_ROWS = 5_000;

/** The page number at 90 % of a list of `total` rows. */
export const deepPageOf = (total: number): number =>
  Math.max(1, Math.floor((total * 0.9) / PER_PAGE));

export async function queryCosts(
  db: LegacyDb,
  scenarios: readonly ListScenario[],
  asOf: AsOf,
  runs: number,
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
    const count = await timeRuns(() => source.count(filter, asOf), Math.min(runs, 5));
    const total = await source.count(filter, asOf);
    const pageNo = s.deep ? deepPageOf(total) : 1;
    const offset = (pageNo - 1) * PER_PAGE;
    const request = { offset, limit: PER_PAGE };
    const page = await timeRuns(() => source.page(filter, asOf, request), runs);
    const marked = offset + PER_PAGE > EARLY_ROWS && filter.updatedSinceLocal === undefined;
    const marksSql = marksStatement(filter, asOf, MARK_SPACING);
    const marks = marked
      ? await timeRuns(() => db.query(marksSql.sql, marksSql.params), Math.min(runs, 3), 0)
      : undefined;
    const statement = marked
      ? await markedPage(db, marksSql, filter, asOf, offset)
      : pageStatement(filter, asOf, request);
    costs.push({
      scenario: s.name,
      path: `/v1/vacancies?${s.query}${s.query ? "&" : ""}per_page=${PER_PAGE}&page=${pageNo}`,
      total,
      page,
      count,
      ...(marks ? { marks } : {}),
      plan: await explain(db, statement),
    });
  }
  return costs;
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

async function explain(db: LegacyDb, s: Statement): Promise<string> {
  const rows = await db.query<Record<string, unknown>>(`EXPLAIN ${s.sql}`, s.params);
  return rows
    .map(
      (r) =>
        `${String(r.table)}:${String(r.type)}:${String(r.key)}(${String(r.rows)})${String(r.Extra ?? "").includes("filesort") ? "+sort" : ""}`,
    )
    .join(" ");
}
