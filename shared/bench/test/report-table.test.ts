import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  benchFiles,
  benchTable,
  formatNumber,
  ratioOf,
  shortfall,
  type RecordedBenchRow,
} from "../src/index.ts";

const row = (over: Partial<RecordedBenchRow> = {}): RecordedBenchRow => ({
  bench: "read",
  scenario: "list page 1",
  metric: "throughput",
  value: 654.4,
  unit: "req/s",
  ...over,
});

describe("the benchmark table", () => {
  it("rounds to 0, 1 or 2 decimals by size", () => {
    expect(formatNumber(1234.56)).toBe("1,235");
    expect(formatNumber(12.345)).toBe("12.3");
    expect(formatNumber(1.2345)).toBe("1.23");
    expect(formatNumber(Number.NaN)).toBe("NaN");
  });

  it("gives the ratio to the baseline, or a dash without one", () => {
    expect(ratioOf(row({ value: 150, baseline: 200 }))).toBe("0.75×");
    expect(ratioOf(row())).toBe("–");
    expect(ratioOf(row({ baseline: 0 }))).toBe("–");
  });

  it("writes one line per row, escaping pipes, with the target met or not", () => {
    const table = benchTable([
      row({ baseline: 500, target: "≥ 60% of baseline", met: true }),
      row({ scenario: "a | b", metric: "p99", value: 95, unit: "ms", met: false }),
    ]).split("\n");
    expect(table).toHaveLength(4);
    expect(table[0]).toBe("| scenario | metric | value | baseline | ratio | target | met |");
    expect(table[2]).toBe(
      "| list page 1 | throughput | 654 req/s | 500 req/s | 1.31× | ≥ 60% of baseline | yes |",
    );
    expect(table[3]).toBe("| a \\| b | p99 | 95 ms | – | – | – | **no** |");
  });

  it("keeps a scenario that looks like HTML as text, and a target's < as it is", () => {
    const [, , line] = benchTable([row({ scenario: "<b>list</b>", target: "< 100 ms" })]).split(
      "\n",
    );
    expect(line).toContain("| &lt;b>list&lt;/b> |");
    expect(line).toContain("| < 100 ms |");
  });
});

describe("benchFiles", () => {
  const root = mkdtempSync(join(tmpdir(), "bench-files-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("finds the *-bench.ts files of every bench/ folder, then the tools' ones, in name order", () => {
    for (const dir of ["services/a/bench", "services/b", "shared/c/bench", "tools"])
      mkdirSync(join(root, dir), { recursive: true });
    for (const file of [
      "services/a/bench/read-bench.ts",
      "services/a/bench/helper.ts",
      "shared/c/bench/relay-bench.ts",
      "tools/idle-bench.ts",
      "tools/start.ts",
      "services/a/bench/auth-bench.ts",
    ])
      writeFileSync(join(root, file), "");
    expect(benchFiles(root)).toEqual(
      [
        "services/a/bench/auth-bench.ts",
        "services/a/bench/read-bench.ts",
        "shared/c/bench/relay-bench.ts",
        "tools/idle-bench.ts",
      ].map((f) => join(root, f)),
    );
  });
});

describe("shortfall", () => {
  it("says how far a row is from its target, in the target's own terms", () => {
    const cases: Array<[Partial<RecordedBenchRow>, string]> = [
      [{ value: 5.6, unit: "ms", target: "< 5 ms" }, "by 0.6 ms"],
      [{ value: 115, unit: "ms", target: "< 100 ms" }, "by 15 ms"],
      [{ value: 730, baseline: 1_333, target: "≥ 0.6× baseline" }, "by 0.05×"],
      [{ value: 53, baseline: 100, target: "≥ 60% of baseline" }, "by 7 %"],
      [{ value: 9.4, baseline: 4.2, target: "≤ 2× warm" }, "by 0.24×"],
      [{ value: 1.32, unit: "ratio", target: "<= 1.2" }, "by 0.12 ratio"],
      [{ value: 3, unit: "updates", target: "0" }, "by 3 updates"],
      [{ value: 850, unit: "tokens/s", target: "≥ 1,000 tokens/s" }, "by 150 tokens/s"],
      [{ value: 1.2, target: "≥ 0.7× baseline" }, "–"],
      [{ value: 20, unit: "%", target: "cost < 15% (on ≤ off / 0.85)" }, "–"],
      [{ value: 1, target: "fast" }, "–"],
    ];
    for (const [over, expected] of cases)
      expect(shortfall(row({ baseline: undefined, ...over })), over.target).toBe(expected);
  });
});
