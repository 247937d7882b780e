// The one benchmark table of `npm run bench` (tools/bench.ts): which benches there are, and their
// rows as markdown for bench/results/latest.md and the README (between its markers).
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { RecordedBenchRow } from "./bench-report.ts";

/** Where the README's table sits. */
export const README_MARKERS = { start: "<!-- bench:start -->", end: "<!-- bench:end -->" };

/**
 * Every benchmark under `root`, as absolute paths: services/<name>/bench/*-bench.ts,
 * shared/<name>/bench/*-bench.ts, then tools/*-bench.ts.
 */
export function benchFiles(root: string): string[] {
  const inBenchFolders = ["services", "shared"].flatMap((top) =>
    readdirSync(join(root, top), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(root, top, d.name, "bench")))
      .flatMap((d) =>
        readdirSync(join(root, top, d.name, "bench"))
          .filter((f) => f.endsWith("-bench.ts"))
          .map((f) => join(root, top, d.name, "bench", f)),
      ),
  );
  const tools = readdirSync(join(root, "tools"))
    .filter((f) => f.endsWith("-bench.ts"))
    .map((f) => join(root, "tools", f));
  return [...inBenchFolders, ...tools];
}

const cell = (text: string) => text.replace(/\|/g, "\\|");

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** value / baseline; "–" without a baseline. */
export function ratioOf(row: RecordedBenchRow): string {
  if (row.baseline === undefined || row.baseline === 0 || !Number.isFinite(row.baseline))
    return "–";
  return `${(row.value / row.baseline).toFixed(2)}×`;
}

/** One markdown table: benchmark, scenario, metric, value, baseline, ratio, target, met. */
export function benchTable(rows: RecordedBenchRow[]): string {
  const lines = [
    "| benchmark | scenario | metric | value | baseline | ratio | target | met |",
    "|---|---|---|---:|---:|---:|---|---|",
  ];
  for (const row of rows) {
    const unit = row.unit ? ` ${row.unit}` : "";
    lines.push(
      `| ${cell(row.bench)} | ${cell(row.scenario)} | ${cell(row.metric)} | ${formatNumber(row.value)}${unit} | ${row.baseline === undefined ? "–" : `${formatNumber(row.baseline)}${unit}`} | ${ratioOf(row)} | ${cell(row.target ?? "–")} | ${row.met === undefined ? "–" : row.met ? "yes" : "**no**"} |`,
    );
  }
  return lines.join("\n");
}

/** The README's text between the markers: when and where measured, then the table. */
export function readmeSection(rows: RecordedBenchRow[], header: string): string {
  return `${README_MARKERS.start}\n${header}\n\n${benchTable(rows)}\n${README_MARKERS.end}`;
}

/** `text` with the section between the markers replaced by the table; null without the markers. */
export function withReadmeTable(
  text: string,
  rows: RecordedBenchRow[],
  header: string,
): string | null {
  const start = text.indexOf(README_MARKERS.start);
  const end = text.indexOf(README_MARKERS.end);
  if (start < 0 || end < start) return null;
  return `${text.slice(0, start)}${readmeSection(rows, header)}${text.slice(end + README_MARKERS.end.length)}`;
}
