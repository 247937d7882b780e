/**
 * growth-bench.ts, the queries part: what each practice list scenario costs the source
 * (MysqlPracticeSource, in this process, one request at a time) at one data size, and the plan
 * MariaDB picks for its page. A cost that grows with the table or the offset shows here first,
 * without HTTP or load.
 */
import type { LegacyDb } from "@svc/db";
import { deepPageOf, explainPlan, failed, timeOrFail, type QueryCost } from "@svc/bench";
import type { PracticeFilters } from "../src/domain/practice.ts";
import { marksSql, MysqlPracticeSource, pageSql } from "../src/source/mysql-practice-source.ts";

/** One list request: `deep` asks for the page at 90 % of the list (past the first mark). */
export interface PracticeListScenario {
  name: string;
  filters: PracticeFilters;
  deep?: boolean;
}

/** The API's default page size: the source keeps one page mark per such page. */
export const PER_PAGE = 25;
const MARK_SPACING = 25;

interface Statement {
  text: string;
  params: unknown[];
}

/** The list's query string, as a client sends it. */
export function queryOf(filters: PracticeFilters): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters))
    if (value !== undefined) params.set(name, String(value));
  return params.toString();
}

export async function practiceQueryCosts(
  db: LegacyDb,
  scenarios: readonly PracticeListScenario[],
  today: string,
  runs: number,
  onCost: (cost: QueryCost) => void,
): Promise<QueryCost[]> {
  // Marks kept for the whole run: the page timings are of the marked walk, the marks' own read
  // is timed apart.
  const source = new MysqlPracticeSource(db, { marks: { ttlMs: 3_600_000, now: Date.now } });
  const costs: QueryCost[] = [];
  for (const s of scenarios) {
    let total = Number.NaN;
    const count = await timeOrFail(
      async () => {
        total = await source.count(s.filters, today);
      },
      Math.min(runs, 3),
    );
    const pageNo = s.deep && !failed(count) ? deepPageOf(total, PER_PAGE) : 1;
    const offset = (pageNo - 1) * PER_PAGE;
    const window = { offset, limit: PER_PAGE };
    const page = await timeOrFail(() => source.page(s.filters, today, window), runs, 1);
    // The source cuts a page from its mark past the first page; an exact-name search never.
    const marked = offset >= MARK_SPACING && s.filters.search === undefined;
    const marks = marked
      ? await timeOrFail(() => readMarks(db, s.filters, today), Math.min(runs, 2))
      : undefined;
    const statement =
      marked && marks && !failed(marks)
        ? await markedPage(db, s.filters, today, offset)
        : pageSql(s.filters, today, window);
    const query = queryOf(s.filters);
    const cost: QueryCost = {
      scenario: s.name,
      path: `/v1/practices?${query}${query ? "&" : ""}per_page=${PER_PAGE}&page=${pageNo}`,
      total,
      page,
      count,
      ...(marks ? { marks } : {}),
      plan: await explainPlan(db, statement.text, statement.params),
    };
    onCost(cost);
    costs.push(cost);
  }
  return costs;
}

async function readMarks(db: LegacyDb, filters: PracticeFilters, today: string) {
  const q = marksSql(filters, today, MARK_SPACING);
  return (await db.query<{ practice_id: string }>(q.text, q.params)).map((r) => r.practice_id);
}

/** The statement the source runs for a marked page: from the mark at or before `offset`. */
async function markedPage(
  db: LegacyDb,
  filters: PracticeFilters,
  today: string,
  offset: number,
): Promise<Statement> {
  const marks = await readMarks(db, filters, today);
  const index = Math.min(marks.length - 1, Math.floor(offset / MARK_SPACING));
  return pageSql(
    filters,
    today,
    { offset: offset - index * MARK_SPACING, limit: PER_PAGE },
    { from: marks[index] ?? "" },
  );
}
