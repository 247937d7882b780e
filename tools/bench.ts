// `npm run bench`: runs every benchmark (services/*/bench/*-bench.ts, shared/*/bench/*-bench.ts,
// tools/*-bench.ts) one after the other on Node 24 and shows their output. Each bench hands its
// figures to recordBenchRows (@svc/bench), which appends them to the file this runner names in
// BENCH_RESULTS_FILE; the runner then writes ONE table (every row beside its baseline measured in
// the same run, the ratio, the target, met or not) to bench/results/latest.md, followed by each
// bench's raw output, keeps the rows in bench/results/latest.jsonl, and prints the table.
//
//   npm run bench                          every bench
//   npm run bench -- --only vacancies      the benches whose path contains "vacancies"
//   npm run bench -- --readme              also rewrite the README's table (between the markers)
//   npm run bench -- --readme-only         only rewrite the README's table from latest.jsonl
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  benchFiles,
  benchTable,
  cpuProbeMicros,
  readBenchRows,
  readCpuTicks,
  stealPercent,
  withReadmeTable,
  README_MARKERS as MARKERS,
  type RecordedBenchRow,
} from "@svc/bench";

const root = fileURLToPath(new URL("..", import.meta.url));
const RESULTS = join(root, "bench/results");
// BENCH_README: another file to rewrite instead (to try the markers out without touching the README).
const README = process.env.BENCH_README ?? join(root, "README.md");
const { values } = parseArgs({
  options: {
    only: { type: "string" },
    readme: { type: "boolean", default: false },
    "readme-only": { type: "boolean", default: false },
  },
});

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
function rewriteReadme(rows: RecordedBenchRow[], header: string): void {
  const rewritten = withReadmeTable(readFileSync(README, "utf8"), rows, header);
  if (rewritten === null) {
    console.error(
      `${relative(root, README)} has no ${MARKERS.start} … ${MARKERS.end} markers: the table was not written there.`,
    );
    process.exitCode = 1;
    return;
  }
  writeFileSync(README, rewritten);
  console.log(`rewrote the benchmark table in ${relative(root, README)} (${rows.length} rows)`);
}

if (values["readme-only"]) {
  const rows = readBenchRows(join(RESULTS, "latest.jsonl"));
  const header =
    readFileSync(join(RESULTS, "latest.md"), "utf8")
      .split("\n")
      .find((l) => l.startsWith("Measured ")) ?? "";
  rewriteReadme(rows, header);
  process.exit(process.exitCode ?? 0);
}

const files = benchFiles(root).filter(
  (f) => !values.only || relative(root, f).includes(values.only),
);
mkdirSync(RESULTS, { recursive: true });
const startedAt = new Date();
const loadAtStart = load();
const probeAtStart = cpuProbeMicros();
const ticksAtStart = readCpuTicks();
const allRows: RecordedBenchRow[] = [];
const raw: string[] = [];
let failures = 0;
for (const file of files) {
  const name = relative(root, file);
  const rowsFile = join(RESULTS, `${name.replace(/[^a-z0-9]+/gi, "-")}.rows.tmp`);
  rmSync(rowsFile, { force: true });
  console.log(`\n=== ${name} (load average ${load()}; machine probe ${cpuProbeMicros()} µs)`);
  const run = spawnSync(process.execPath, [file], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, BENCH_RESULTS_FILE: rowsFile },
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 20 * 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  process.stdout.write(run.stdout ?? "");
  const rows = readBenchRows(rowsFile);
  rmSync(rowsFile, { force: true });
  allRows.push(...rows);
  const failed = run.status !== 0;
  if (failed) failures += 1;
  raw.push(
    `## ${name}`,
    "",
    "```",
    (run.stdout ?? "").trim(),
    "```",
    failed
      ? `(exited ${run.status ?? run.signal}${run.error ? `: ${run.error.message}` : ""})`
      : "",
    `${rows.length} rows recorded; load average after: ${load()}`,
    "",
  );
}
const steal = stealPercent(ticksAtStart, readCpuTicks());
const header = [
  `Measured ${startedAt.toISOString().slice(0, 10)} with Node ${process.version} on this ${availableParallelism()}-core machine, load average ${loadAtStart} at the start and ${load()} at the end (other work ran on it: compare ratios, not absolute figures).`,
  `Machine speed (@svc/bench machine-probe.ts): a fixed JSON workload took ${probeAtStart} µs at the start and ${cpuProbeMicros()} µs at the end (lower is faster; everything measured in between, baselines included, moves with it), CPU steal over the run ${steal === null ? "unknown" : `${steal.toFixed(1)} %`}.`,
].join(" ");
const report = [
  `# Benchmark run ${startedAt.toISOString()}`,
  "",
  header,
  "",
  `${files.length} benchmarks, ${failures} failed, ${allRows.length} rows. Ratio = value / baseline measured in the same run.`,
  "",
  benchTable(allRows),
  "",
  "# Raw output",
  "",
  ...raw,
].join("\n");
// A subset (--only) does not replace the full run's files.
const base = values.only ? `latest-${values.only.replace(/[^a-z0-9]+/gi, "-")}` : "latest";
writeFileSync(join(RESULTS, `${base}.md`), report);
writeFileSync(
  join(RESULTS, `${base}.jsonl`),
  allRows.map((r) => JSON.stringify(r)).join("\n") + (allRows.length ? "\n" : ""),
);
console.log(`\n${header}\n\n${benchTable(allRows)}\n`);
console.log(
  `wrote bench/results/${base}.md and ${base}.jsonl (${files.length} benchmarks, ${failures} failed, ${allRows.length} rows)`,
);
if (values.readme) rewriteReadme(allRows, header);
process.exit(failures > 0 ? 1 : (process.exitCode ?? 0));
