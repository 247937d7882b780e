// The benchmark tables of `npm run bench` (tools/bench.ts): which benches there are, and a
// benchmark's rows as markdown for docs/performance/results.md and the terminal.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { BenchRow } from "./bench-report.ts";

/**
 * Every benchmark under `root`, as absolute paths: services/<name>/bench/*-bench.ts,
 * shared/<name>/bench/*-bench.ts, then tools/*-bench.ts, each group in name order.
 */
export function benchFiles(root: string): string[] {
  const inBenchFolders = ["services", "shared"].flatMap((top) =>
    readdirSync(join(root, top), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(root, top, d.name, "bench")))
      .flatMap((d) =>
        readdirSync(join(root, top, d.name, "bench"))
          .filter((f) => f.endsWith("-bench.ts"))
          .map((f) => join(root, top, d.name, "bench", f)),
      )
      .sort(),
  );
  const tools = readdirSync(join(root, "tools"))
    .filter((f) => f.endsWith("-bench.ts"))
    .map((f) => join(root, "tools", f))
    .sort();
  return [...inBenchFolders, ...tools];
}

/** Markdown table cell text: pipes escaped, and a `<` that could open an HTML tag. */
export const markdownCell = (text: string) =>
  text.replace(/\|/g, "\\|").replace(/<(?=[A-Za-z/!?])/g, "&lt;");
const cell = markdownCell;

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** value / baseline; "–" without a baseline. */
export function ratioOf(row: Pick<BenchRow, "value" | "baseline">): string {
  if (row.baseline === undefined || row.baseline === 0 || !Number.isFinite(row.baseline))
    return "–";
  return `${(row.value / row.baseline).toFixed(2)}×`;
}

/**
 * One benchmark's rows as a markdown table: scenario, metric, value, baseline, ratio, target, met.
 */
export function benchTable(rows: BenchRow[]): string {
  const lines = [
    "| scenario | metric | value | baseline | ratio | target | met |",
    "|---|---|---:|---:|---:|---|---|",
  ];
  for (const row of rows) {
    const unit = row.unit ? ` ${row.unit}` : "";
    const metric =
      row.x === undefined
        ? row.metric
        : `${row.metric} at ${formatNumber(row.x)} ${row.xUnit ?? ""}`;
    lines.push(
      `| ${cell(row.scenario)} | ${cell(metric.trim())} | ${formatNumber(row.value)}${unit} | ${row.baseline === undefined ? "–" : `${formatNumber(row.baseline)}${unit}`} | ${ratioOf(row)} | ${cell(row.target ?? "–")} | ${row.met === undefined ? "–" : row.met ? "yes" : "**no**"} |`,
    );
  }
  return lines.join("\n");
}

/**
 * How far a row that missed its target is from it, in the target's own terms: "by 0.6 ms" for
 * "< 5 ms", "by 0.05×" for "≥ 0.6× baseline" (a ratio to the row's baseline), "by 5 %" for
 * "≥ 60% of baseline"; "–" for a target it cannot read.
 */
export function shortfall(row: BenchRow): string {
  const target = row.target ?? "";
  const m = /^(?:<=|>=|[<≤>≥])?\s*([\d.,]+)\s*(×|%)?/.exec(target);
  if (!m || /\b(?:cost|over)\b/.test(target)) return "–";
  const bound = Number((m[1] as string).replace(/,/g, ""));
  let actual = row.value;
  let unit = row.unit ? ` ${row.unit}` : "";
  if (m[2] !== undefined) {
    if (!row.baseline) return "–";
    actual = m[2] === "%" ? (100 * row.value) / row.baseline : row.value / row.baseline;
    unit = m[2] === "%" ? " %" : "×";
  }
  return `by ${formatNumber(Math.abs(actual - bound))}${unit}`;
}
