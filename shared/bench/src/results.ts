// The results of `npm run bench` (tools/bench.ts): the rows and runs kept in
// docs/performance/results.jsonl, and what is generated from them alone: results.md (the runs,
// then per benchmark a table of its rows and a plot per scenario) and the plots' SVG files.
// Nothing else goes in, so `npm run bench -- --report-only` rewrites the same files.
import type { RecordedBenchRow } from "./bench-report.ts";
import { scenarioPlot, slug } from "./plot.ts";
import { curvePlot, isCurve } from "./curve-plot.ts";
import { benchTable, formatNumber, markdownCell, shortfall } from "./report-table.ts";

/** One bench file of a run. */
export interface BenchRunFile {
  /** Relative to the repository root, e.g. services/vacancies/bench/read-bench.ts. */
  file: string;
  /** The machine probe (µs) just before it started; absent where not recorded. */
  probeMicros?: number;
  /** How it failed ("exit 1", "SIGTERM", a spawn error); absent when it succeeded. */
  failed?: string;
}

/** One `npm run bench`: where and how fast it ran. */
export interface BenchRun {
  /** When it started (ISO 8601, UTC): the id its rows carry. */
  run: string;
  /** process.version, e.g. v24.21.0. */
  node: string;
  cores: number;
  /** Load average (1, 5 and 15 minutes) at the start and at the end. */
  load: { start: string; end: string };
  /**
   * The machine probe (cpuProbeMicros, µs, lower is faster) at the start and the end; null: none.
   */
  probeMicros: { start: number; end: number } | null;
  /** Share of CPU time the hypervisor gave to other guests over the run (%); null: unknown. */
  stealPercent: number | null;
  /** BENCH_MEMORY: pod (every process under its chart memory limit) or host (unconstrained). */
  memory: "pod" | "host";
  files: BenchRunFile[];
}

/** A row as kept: which bench file recorded it, in which run. */
export interface ResultRow extends RecordedBenchRow {
  file: string;
  run: string;
}

export interface BenchResults {
  runs: BenchRun[];
  rows: ResultRow[];
}

const isRow = (line: Record<string, unknown>): boolean =>
  typeof line.bench === "string" &&
  typeof line.scenario === "string" &&
  typeof line.metric === "string" &&
  typeof line.value === "number" &&
  typeof line.file === "string" &&
  typeof line.run === "string";

const isRun = (line: Record<string, unknown>): boolean =>
  typeof line.run === "string" && typeof line.node === "string" && Array.isArray(line.files);

/** The runs and rows of a results.jsonl text; a line that is neither fails, naming its number. */
export function parseResults(text: string): BenchResults {
  const results: BenchResults = { runs: [], rows: [] };
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    const parsed = JSON.parse(line) as Record<string, unknown>;
    if (isRow(parsed)) results.rows.push(parsed as unknown as ResultRow);
    else if (isRun(parsed)) results.runs.push(parsed as unknown as BenchRun);
    else throw new Error(`results line ${i + 1} is neither a run nor a row: ${line.slice(0, 80)}`);
  });
  return results;
}

/** services/ first, then shared/, then tools/, each in name order. */
function fileRank(file: string): [number, string] {
  const top = ["services/", "shared/", "tools/"].findIndex((prefix) => file.startsWith(prefix));
  return [top < 0 ? 3 : top, file];
}

function compareFiles(a: string, b: string): number {
  const [ra, fa] = fileRank(a);
  const [rb, fb] = fileRank(b);
  return ra - rb || (fa < fb ? -1 : fa > fb ? 1 : 0);
}

/** Runs oldest first; rows by bench file, each file's rows in the order recorded. */
export function orderResults(results: BenchResults): BenchResults {
  return {
    runs: [...results.runs].sort((a, b) => (a.run < b.run ? -1 : a.run > b.run ? 1 : 0)),
    rows: [...results.rows].sort((a, b) => compareFiles(a.file, b.file)),
  };
}

/**
 * The results after `run`: a full run replaces everything; a subset (`--only`) replaces the rows
 * of the files it ran and keeps the others, with the runs that measured them.
 */
export function mergeRun(
  previous: BenchResults,
  run: BenchRun,
  rows: ResultRow[],
  subset: boolean,
): BenchResults {
  if (!subset) return orderResults({ runs: [run], rows });
  // A file that failed leaves its previous rows standing (the run still records the failure).
  const ran = new Set(run.files.filter((f) => f.failed === undefined).map((f) => f.file));
  const kept = previous.rows.filter((r) => !ran.has(r.file));
  const used = new Set(kept.map((r) => r.run));
  const runs = previous.runs
    .filter((r) => used.has(r.run) && r.run !== run.run)
    .map((r) => ({ ...r, files: r.files.filter((f) => !ran.has(f.file)) }));
  return orderResults({ runs: [...runs, run], rows: [...kept, ...rows] });
}

/** results.jsonl: one line per run, then one per row. */
export function resultsJsonl(results: BenchResults): string {
  const { runs, rows } = orderResults(results);
  return [...runs, ...rows].map((line) => `${JSON.stringify(line)}\n`).join("");
}

const when = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;
const escapeAlt = (text: string) =>
  text.replace(/[[\]\\]/g, (c) => `\\${c}`).replace(/<(?=[A-Za-z/!?])/g, "&lt;");
const unique = <T>(items: T[]) => [...new Set(items)];

function runsTable(results: BenchResults): string {
  const lines = [
    "| run | started | Node | cores | memory | load average, start → end | machine probe, start → end | CPU steal | benchmarks |",
    "|---:|---|---|---:|---|---|---|---:|---|",
  ];
  results.runs.forEach((run, i) => {
    const benches = unique(results.rows.filter((r) => r.run === run.run).map((r) => r.bench));
    const failed = run.files
      .filter((f) => f.failed !== undefined)
      .map((f) => `**failed**: \`${f.file}\` (${f.failed})`);
    lines.push(
      `| ${i + 1} | ${when(run.run)} | ${run.node} | ${run.cores} | ${run.memory === "pod" ? "pod limit" : "host"} | ${run.load.start} → ${run.load.end} | ${run.probeMicros ? `${run.probeMicros.start} → ${run.probeMicros.end} µs` : "not recorded"} | ${run.stealPercent === null ? "–" : `${run.stealPercent.toFixed(1)} %`} | ${markdownCell([...benches, ...failed].join(", ") || "–")} |`,
    );
  });
  return lines.join("\n");
}

/**
 * Where each benchmark's targets are reasoned about (docs/decisions/): what a row that misses its
 * target links to for why.
 */
const WHY: Record<string, string> = {
  "auth token": "verified-token-cache.md",
  "change to webhook": "change-detection-latency.md",
  "events change detection": "change-detection-sweep.md",
  "identity applications": "application-write-path.md",
  "idle memory": "idle-heap-release.md",
  "practices growth": "growth.md",
  "practices read": "open-loop-load.md",
  "tracing overhead": "tracing-cost.md",
  "vacancies cold start": "cold-start-warm-up.md",
  "vacancies growth": "growth.md",
  "vacancies read": "open-loop-load.md",
  "webhooks-backlog-memory": "webhook-dispatcher-bounds.md",
  "webhooks-dispatch": "delivery-throughput.md",
};

/** Every row that missed its target, how far, and where the reasons are. */
function missedTable(results: BenchResults): string {
  const missed = results.rows.filter((r) => r.met === false);
  if (missed.length === 0) return "Every target is met.";
  const lines = [
    "| benchmark | scenario | metric | value | target | short by | why |",
    "|---|---|---|---:|---|---|---|",
  ];
  for (const r of missed) {
    const why = WHY[r.bench];
    lines.push(
      `| ${markdownCell(r.bench)} | ${markdownCell(r.scenario)} | ${markdownCell(r.metric)} | ${formatNumber(r.value)}${r.unit ? ` ${r.unit}` : ""} | ${markdownCell(r.target ?? "–")} | ${shortfall(r)} | ${why ? `[${why.replace(/\.md$/, "")}](../decisions/${why})` : "–"} |`,
    );
  }
  return lines.join("\n");
}

/**
 * What `results` generates, by path relative to docs/performance: results.md and
 * plots/<bench>-<scenario>.svg, one plot per scenario.
 */
export function resultsReport(input: BenchResults): Map<string, string> {
  const results = orderResults(input);
  const files = new Map<string, string>();
  const runNumber = new Map(results.runs.map((r, i) => [r.run, i + 1]));
  const md: string[] = [
    "# Benchmark results",
    "",
    "Written by `npm run bench` from [results.jsonl](results.jsonl); do not edit it by hand. How the",
    "benchmarks run, what each one measures and how to read these figures: [Performance](../performance.md).",
    "",
    "Every figure stands beside its bare baseline, measured in the same run on the same machine;",
    "ratio = value / baseline. The machine's speed varies between runs (see the machine probe), and",
    "every figure of a run, baselines included, moves with it: compare ratios, not absolute figures.",
    "",
    "## Runs",
    "",
    runsTable(results),
    "",
    "Memory: under the pod limit, every service and its baseline ran in a memory cgroup of the size",
    "the chart gives its pod; on the host, unconstrained. Machine probe: a fixed single-threaded JSON",
    "workload, timed at the start and at the end of the run (µs, lower is faster). CPU steal: the",
    "share of CPU time the hypervisor gave to other guests over the run.",
    "",
    "## Targets not met",
    "",
    missedTable(results),
  ];
  const taken = new Set<string>();
  for (const bench of unique(results.rows.map((r) => r.bench))) {
    const rows = results.rows.filter((r) => r.bench === bench);
    const measured = unique(rows.map((r) => `${r.file}\u0000${r.run}`)).map((key) => {
      const [file, run] = key.split("\u0000") as [string, string];
      const n = runNumber.get(run);
      const probe = results.runs
        .find((r) => r.run === run)
        ?.files.find((f) => f.file === file)?.probeMicros;
      return `\`${file}\` in ${n === undefined ? `a run not recorded (${run})` : `run ${n} (${when(run)})`}${probe === undefined ? "" : `, machine probe ${probe} µs before it`}`;
    });
    md.push("", `## ${bench}`, "", `Measured by ${measured.join("; ")}.`, "", benchTable(rows));
    for (const scenario of unique(rows.map((r) => r.scenario))) {
      let name = `${slug(bench)}-${slug(scenario)}`;
      for (let n = 2; taken.has(name); n++) name = `${slug(bench)}-${slug(scenario)}-${n}`;
      taken.add(name);
      const path = `plots/${name}.svg`;
      const scenarioRows = rows.filter((r) => r.scenario === scenario);
      files.set(
        path,
        isCurve(scenarioRows)
          ? curvePlot(bench, scenario, scenarioRows)
          : scenarioPlot(bench, scenario, scenarioRows),
      );
      md.push("", `![${escapeAlt(`${bench}: ${scenario}`)}](${path})`);
    }
  }
  if (results.rows.length === 0) md.push("", "No benchmark rows recorded yet.");
  files.set("results.md", `${md.join("\n")}\n`);
  return files;
}
