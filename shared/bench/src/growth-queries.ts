/**
 * The growth benchmarks' queries part (services/*\/bench/growth-queries.ts measure them): what a
 * list scenario costs the service's source, one request at a time, as rows and printed lines.
 */
import type { LegacyDb } from "@svc/db";
import type { BenchRow } from "./bench-report.ts";
import { failed, round1, type Timing } from "./growth.ts";

export interface QueryCost {
  scenario: string;
  /** The path the load part sends (page number resolved for deep pages). */
  path: string;
  total: number;
  page: Timing;
  count: Timing;
  /** Reading the list's page marks (deep pages that walk from a mark). */
  marks?: Timing;
  /** EXPLAIN of the page statement: table:access:index(rows estimate) per step. */
  plan: string;
}

/** The page number at 90 % of a list of `total` rows: past the early walk. */
export const deepPageOf = (total: number, perPage: number): number =>
  Math.max(1, Math.floor((total * 0.9) / perPage));

/** Prints the table's header and hands back the printer of one cost's line. */
export function queryCostPrinter(out: (line: string) => void): (c: QueryCost) => void {
  out(
    `${"scenario".padEnd(32)} ${"rows".padStart(9)} ${"page".padStart(13)} ${"count".padStart(13)} ${"marks".padStart(13)}  plan of the page`,
  );
  const ms = (t?: Timing) =>
    (t ? `${failed(t) ? "!" : ""}${t.median.toFixed(1)}/${t.p99.toFixed(1)}` : "–").padStart(13);
  return (c) =>
    out(
      `${c.scenario.padEnd(32)} ${String(c.total).padStart(9)} ${ms(c.page)} ${ms(c.count)} ${ms(c.marks)}  ${c.plan}`,
    );
}

/**
 * Each cost's medians as rows, against the service's query timeout (a step slower fails its
 * request); `subject` starts each scenario, e.g. "10,000 vacancies".
 */
export function queryCostRows(
  subject: string,
  costs: readonly QueryCost[],
  queryTimeoutMs: number,
): BenchRow[] {
  const row = (scenario: string, metric: string, t: Timing): BenchRow => ({
    scenario,
    metric: failed(t) ? `${metric} (failed after)` : metric,
    value: round1(t.median),
    unit: "ms",
    target: `< ${queryTimeoutMs} ms (query timeout)`,
    met: !failed(t) && t.p99 < queryTimeoutMs,
  });
  return costs.flatMap((c) => {
    const scenario = `${subject}: ${c.scenario}, source alone`;
    const rows = [row(scenario, "page median", c.page), row(scenario, "COUNT median", c.count)];
    if (c.marks) rows.push(row(scenario, "page marks read", c.marks));
    return rows;
  });
}

/** EXPLAIN of a statement: table:access:index(rows estimate) per step, +sort for a filesort. */
export async function explainPlan(db: LegacyDb, sql: string, params: unknown[]): Promise<string> {
  const rows = await db.query<Record<string, unknown>>(`EXPLAIN ${sql}`, params);
  return rows
    .map(
      (r) =>
        `${String(r.table)}:${String(r.type)}:${String(r.key)}(${String(r.rows)})${String(r.Extra ?? "").includes("filesort") ? "+sort" : ""}`,
    )
    .join(" ");
}
