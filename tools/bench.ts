// `npm run bench`: runs every benchmark (services/*/bench/*-bench.ts, shared/*/bench/*-bench.ts,
// tools/*-bench.ts) one after the other on Node 24 and shows their output. Each bench hands its
// figures to recordBenchRows (@svc/bench), which appends them to the file this runner names in
// BENCH_RESULTS_FILE. The runner keeps them, with the run's machine readings, in
// docs/performance/results.jsonl, and generates docs/performance/results.md and its plots from
// that file alone (@svc/bench results.ts). The guide: docs/performance.md.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  benchEnv,
  benchFiles,
  benchTable,
  cpuProbeMicros,
  mergeRun,
  parseResults,
  readBenchRows,
  readCpuTicks,
  resultsJsonl,
  resultsReport,
  stealPercent,
  type BenchResults,
  type BenchRun,
  type BenchRunFile,
  type ResultRow,
} from "@svc/bench";

const HELP = `Usage: npm run bench [-- options]

Runs every benchmark (services/*/bench/*-bench.ts, shared/*/bench/*-bench.ts, tools/*-bench.ts)
one after the other, then writes docs/performance/results.jsonl, results.md and plots/.

  --only <text>    run only the benchmarks whose path contains <text>; their rows replace
                   their previous rows, every other benchmark's rows are kept
  --list           list the benchmarks (with --only: those it selects) and run nothing
  --report-only    regenerate results.md and plots/ from results.jsonl, run nothing
  --check          exit 1 unless results.md and plots/ are what results.jsonl generates
  --help           this text

BENCH_MEMORY=host runs every service and baseline without its pod's memory limit.`;

const root = fileURLToPath(new URL("..", import.meta.url));
const RESULTS = join(root, "docs/performance");
const JSONL = join(RESULTS, "results.jsonl");
const PLOTS = join(RESULTS, "plots");

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    list: { type: "boolean", default: false },
    "report-only": { type: "boolean", default: false },
    check: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});

const readResults = (): BenchResults =>
  existsSync(JSONL) ? parseResults(readFileSync(JSONL, "utf8")) : { runs: [], rows: [] };

function writeReport(results: BenchResults): void {
  rmSync(PLOTS, { recursive: true, force: true });
  mkdirSync(PLOTS, { recursive: true });
  for (const [path, text] of resultsReport(results)) writeFileSync(join(RESULTS, path), text);
}

/** The generated files that differ from what `results` generates, and plots of no scenario. */
function staleFiles(results: BenchResults): string[] {
  const expected = resultsReport(results);
  const differing = [...expected]
    .filter(([path, text]) => {
      const file = join(RESULTS, path);
      return !existsSync(file) || readFileSync(file, "utf8") !== text;
    })
    .map(([path]) => path);
  const extra = existsSync(PLOTS)
    ? readdirSync(PLOTS)
        .map((f) => `plots/${f}`)
        .filter((path) => !expected.has(path))
    : [];
  return [...differing, ...extra];
}

const files = benchFiles(root).filter(
  (f) => !values.only || relative(root, f).includes(values.only),
);

if (values.help) {
  console.log(HELP);
} else if (values.list) {
  for (const file of files) console.log(relative(root, file));
} else if (values.check) {
  const stale = staleFiles(readResults());
  if (stale.length > 0) {
    console.error(
      `not what docs/performance/results.jsonl generates (npm run bench -- --report-only rewrites them):\n  ${stale.join("\n  ")}`,
    );
    process.exitCode = 1;
  } else console.log("docs/performance/results.md and plots/ match results.jsonl");
} else if (values["report-only"]) {
  const results = readResults();
  writeReport(results);
  console.log(
    `wrote docs/performance/results.md and ${resultsReport(results).size - 1} plots from results.jsonl (${results.rows.length} rows)`,
  );
} else if (files.length === 0) {
  console.error(`no benchmark's path contains ${JSON.stringify(values.only)} (--list shows them)`);
  process.exitCode = 1;
} else {
  runBenches();
}

function runBenches(): void {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(" ");
  // Read before running: a results file that cannot be read stops the run before it starts.
  const previous = readResults();
  const rowsDir = mkdtempSync(join(tmpdir(), "bench-rows-"));
  const started = new Date().toISOString();
  const loadAtStart = load();
  const probeAtStart = cpuProbeMicros();
  const ticksAtStart = readCpuTicks();
  const runFiles: BenchRunFile[] = [];
  const rows: ResultRow[] = [];
  try {
    for (const [i, path] of files.entries()) {
      const file = relative(root, path);
      const rowsFile = join(rowsDir, `${i}.jsonl`);
      const probe = cpuProbeMicros();
      console.log(`\n=== ${file} (load average ${load()}; machine probe ${probe} µs)`);
      const run = spawnSync(process.execPath, [path], {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, BENCH_RESULTS_FILE: rowsFile },
        stdio: ["ignore", "inherit", "inherit"],
        timeout: 20 * 60_000,
      });
      const recorded = readBenchRows(rowsFile).map((row) => ({ ...row, file, run: started }));
      rows.push(...recorded);
      const failed =
        run.error?.message ??
        (run.status === 0 ? undefined : run.status !== null ? `exit ${run.status}` : run.signal);
      runFiles.push({ file, probeMicros: probe, ...(failed ? { failed } : {}) });
      console.log(
        `${recorded.length} rows recorded${failed ? `; failed: ${failed}` : ""}; load average after: ${load()}`,
      );
    }
  } finally {
    rmSync(rowsDir, { recursive: true, force: true });
  }
  const run: BenchRun = {
    run: started,
    node: process.version,
    cores: availableParallelism(),
    load: { start: loadAtStart, end: load() },
    probeMicros: { start: probeAtStart, end: cpuProbeMicros() },
    stealPercent: stealPercent(ticksAtStart, readCpuTicks()),
    memory: benchEnv.BENCH_MEMORY,
    files: runFiles,
  };
  const results = mergeRun(previous, run, rows, values.only !== undefined);
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(JSONL, resultsJsonl(results));
  writeReport(results);
  for (const bench of new Set(rows.map((r) => r.bench)))
    console.log(`\n${bench}\n\n${benchTable(rows.filter((r) => r.bench === bench))}`);
  const failures = runFiles.filter((f) => f.failed !== undefined).length;
  console.log(
    `\nwrote docs/performance/results.md, results.jsonl and plots/ (${files.length} benchmarks, ${failures} failed, ${rows.length} rows)`,
  );
  if (failures > 0) process.exitCode = 1;
}
