import { describe, expect, it } from "vitest";
import {
  mergeRun,
  parseResults,
  resultsJsonl,
  resultsReport,
  type BenchResults,
  type BenchRun,
  type ResultRow,
} from "../src/index.ts";

const run = (id: string, files: string[], over: Partial<BenchRun> = {}): BenchRun => ({
  run: id,
  node: "v24.21.0",
  cores: 2,
  load: { start: "1.0 1.0 1.0", end: "2.0 1.5 1.1" },
  probeMicros: { start: 832, end: 820 },
  stealPercent: 1,
  memory: "pod",
  files: files.map((file) => ({ file, probeMicros: 840 })),
  ...over,
});

const row = (over: Partial<ResultRow> = {}): ResultRow => ({
  bench: "vacancies read",
  scenario: "list page 1",
  metric: "throughput",
  value: 392,
  unit: "req/s",
  baseline: 18,
  file: "services/vacancies/bench/read-bench.ts",
  run: "2026-11-26T12:18:52.909Z",
  ...over,
});

const VACANCIES = "services/vacancies/bench/read-bench.ts";
const IDLE = "tools/idle-memory-bench.ts";

const sample = (): BenchResults => ({
  runs: [run("2026-11-26T12:18:52.909Z", [VACANCIES, IDLE])],
  rows: [
    row(),
    row({ metric: "p99", value: 139, unit: "ms", baseline: 2372, target: "< 100 ms", met: false }),
    row({
      bench: "idle memory",
      scenario: "auth process, idle after warm-up",
      metric: "idle RSS",
      value: 95.6,
      unit: "MB",
      baseline: undefined,
      target: "< 120 MB",
      met: true,
      file: IDLE,
    }),
  ],
});

describe("results.jsonl", () => {
  it("keeps runs and rows through a write and a read", () => {
    const results = sample();
    const text = resultsJsonl(results);
    expect(text.split("\n")).toHaveLength(5); // a run, three rows, the final newline
    expect(parseResults(text)).toEqual(JSON.parse(JSON.stringify(results)));
  });

  it("refuses a line that is neither a run nor a row, naming it", () => {
    expect(() => parseResults(`${resultsJsonl(sample())}{"bench":"x"}\n`)).toThrow(/line 5/);
  });
});

describe("mergeRun", () => {
  const before = sample();
  const later = run("2026-11-27T08:00:00.000Z", [VACANCIES]);
  const fresh = [row({ run: later.run, value: 500 })];

  it("replaces, on a subset run, only the rows of the files it ran", () => {
    const merged = mergeRun(before, later, fresh, true);
    expect(merged.rows.map((r) => [r.file, r.value, r.run])).toEqual([
      [VACANCIES, 500, later.run],
      [IDLE, 95.6, before.runs[0]!.run],
    ]);
    expect(merged.runs.map((r) => r.run)).toEqual([before.runs[0]!.run, later.run]);
    // The older run no longer answers for the file that was run again.
    expect(merged.runs[0]!.files.map((f) => f.file)).toEqual([IDLE]);
  });

  it("drops the runs none of whose rows are left", () => {
    const all = run("2026-11-27T08:00:00.000Z", [VACANCIES, IDLE]);
    const merged = mergeRun(before, all, fresh, true);
    expect(merged.runs.map((r) => r.run)).toEqual([all.run]);
    expect(merged.rows).toEqual(fresh);
  });

  it("keeps, on a subset run, the rows of a file that failed, and records the failure", () => {
    const failing = run("2026-11-27T08:00:00.000Z", [], {
      files: [{ file: VACANCIES, probeMicros: 840, failed: "exit 1" }],
    });
    const merged = mergeRun(before, failing, [], true);
    expect(merged.rows).toEqual(before.rows);
    expect(merged.runs.map((r) => r.run)).toEqual([before.runs[0]!.run, failing.run]);
    expect(merged.runs[1]!.files[0]!.failed).toBe("exit 1");
  });

  it("replaces everything on a full run", () => {
    const merged = mergeRun(before, later, fresh, false);
    expect(merged).toEqual({ runs: [later], rows: fresh });
  });
});

describe("resultsReport", () => {
  it("writes the runs, then per benchmark its table and a plot per scenario", () => {
    const files = resultsReport(sample());
    const md = files.get("results.md")!;
    expect(md).toContain("| 1 | 2026-11-26 12:18 UTC | v24.21.0 | 2 | pod limit |");
    expect(md).toContain("| 832 → 820 µs | 1.0 % | vacancies read, idle memory |");
    expect(md).toContain("## vacancies read");
    expect(md).toContain(
      "Measured by `services/vacancies/bench/read-bench.ts` in run 1 (2026-11-26 12:18 UTC), machine probe 840 µs before it.",
    );
    expect(md).toContain("| list page 1 | p99 | 139 ms | 2,372 ms | 0.06× | < 100 ms | **no** |");
    expect(md).toContain("![vacancies read: list page 1](plots/vacancies-read-list-page-1.svg)");
    expect(files.get("plots/vacancies-read-list-page-1.svg")).toContain("<svg");
  });

  it("lists every target not met with how far it is and the decision that says why", () => {
    const md = resultsReport(sample()).get("results.md")!;
    const section = md.slice(md.indexOf("## Targets not met"), md.indexOf("## vacancies read"));
    expect(section.split("\n").filter((l) => l.startsWith("| vacancies"))).toEqual([
      "| vacancies read | list page 1 | p99 | 139 ms | < 100 ms | by 39 ms | [open-loop-load](../decisions/open-loop-load.md) |",
    ]);
    const allMet = sample();
    allMet.rows = allMet.rows.filter((r) => r.met !== false);
    expect(resultsReport(allMet).get("results.md")).toContain(
      "## Targets not met\n\nEvery target is met.",
    );
  });

  it("renders a row without a baseline with a dash and its plot without a baseline bar", () => {
    const files = resultsReport(sample());
    expect(files.get("results.md")).toContain(
      "| auth process, idle after warm-up | idle RSS | 95.6 MB | – | – | < 120 MB | yes |",
    );
    const plot = files.get("plots/idle-memory-auth-process-idle-after-warm-up.svg")!;
    expect(plot).toContain('data-series="value"');
    expect(plot).not.toContain('data-series="baseline"');
  });

  it("draws a scenario measured along x as a curve and names each row's x in the table", () => {
    const at = (x: number, value: number) =>
      row({
        bench: "webhooks-dispatch",
        scenario: "load curve",
        unit: "deliveries/s",
        value,
        x,
        xUnit: "deliveries/s",
        baseline: undefined,
      });
    const files = resultsReport({ runs: sample().runs, rows: [at(400, 398), at(800, 610)] });
    expect(files.get("results.md")).toContain(
      "| load curve | throughput at 800 deliveries/s | 610 deliveries/s | – |",
    );
    const plot = files.get("plots/webhooks-dispatch-load-curve.svg")!;
    expect(plot).toContain("<polyline");
    expect(plot).not.toContain('data-series="value"');
  });

  it("links exactly the plots it writes, giving clashing names a number", () => {
    const results = sample();
    results.rows.push(row({ scenario: "list page 1!", metric: "p50", value: 75.7, unit: "ms" }));
    const files = resultsReport(results);
    const linked = [...files.get("results.md")!.matchAll(/\]\((plots\/[^)]+)\)/g)].map((m) => m[1]);
    expect(linked).toContain("plots/vacancies-read-list-page-1-2.svg");
    expect(linked.sort()).toEqual([...files.keys()].filter((f) => f !== "results.md").sort());
  });

  it("escapes a scenario's brackets and HTML in the plot's alt text", () => {
    const results = sample();
    results.rows.push(row({ scenario: "[x] <b>", metric: "p50", value: 1, unit: "ms" }));
    expect(resultsReport(results).get("results.md")).toContain(
      "![vacancies read: \\[x\\] &lt;b>](plots/vacancies-read-x-b.svg)",
    );
  });

  it("names a failed bench file in its run", () => {
    const results = sample();
    results.runs[0]!.files.push({ file: "services/auth/bench/token-bench.ts", failed: "exit 1" });
    expect(resultsReport(results).get("results.md")).toContain(
      "**failed**: `services/auth/bench/token-bench.ts` (exit 1)",
    );
  });

  it("says so when there are no rows, and shows a run without a machine probe", () => {
    const files = resultsReport({
      runs: [run("2026-11-26T06:39:37.045Z", [], { probeMicros: null, stealPercent: null })],
      rows: [],
    });
    expect([...files.keys()]).toEqual(["results.md"]);
    expect(files.get("results.md")).toContain("| not recorded | – | – |");
    expect(files.get("results.md")).toContain("No benchmark rows recorded yet.");
  });

  it("generates the same files from the same results", () => {
    const first = resultsReport(sample());
    const second = resultsReport(parseResults(resultsJsonl(sample())));
    expect(second).toEqual(first);
  });
});
