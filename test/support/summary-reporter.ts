import type { Reporter, TestModule } from "vitest/node";

/** How many of the slowest files the summary lists. */
const SLOWEST = 15;

/**
 * Ends every run with where its time went (each group's span and the slowest files, wall clock)
 * and one plain line, `Tests: N passed, N failed`, that CI reads as the runner's summary.
 * Unhandled errors count as failures: they fail the run too.
 */
export default class SummaryReporter implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly spans: Array<{ file: string; group: number; start: number; end: number }> = [];

  onTestModuleStart(mod: TestModule): void {
    this.started.set(mod.id, Date.now());
  }

  onTestModuleEnd(mod: TestModule): void {
    const start = this.started.get(mod.id) ?? Date.now();
    const group = mod.project.config.sequence.groupOrder ?? 0;
    this.spans.push({
      file: `${mod.project.name} ${mod.relativeModuleId}`,
      group,
      start,
      end: Date.now(),
    });
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<unknown>,
  ): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const mod of testModules) {
      if (mod.state() === "failed" && [...mod.children.allTests()].length === 0) failed += 1;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed") failed += 1;
        else skipped += 1;
      }
    }
    if (this.spans.length > 1) process.stdout.write(this.timing());
    const tail = skipped > 0 ? `, ${skipped} skipped` : "";
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed${tail}\n`);
  }

  private timing(): string {
    const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
    const groups = [...new Set(this.spans.map((s) => s.group))].sort((a, b) => a - b);
    const lines = groups.map((group) => {
      const of = this.spans.filter((s) => s.group === group);
      const span = Math.max(...of.map((s) => s.end)) - Math.min(...of.map((s) => s.start));
      return `  group ${group}: ${of.length} files in ${seconds(span)}`;
    });
    const slowest = [...this.spans]
      .sort((a, b) => b.end - b.start - (a.end - a.start))
      .slice(0, SLOWEST)
      .map((s) => `  ${seconds(s.end - s.start).padStart(6)}  ${s.file}`);
    return `\nWall time by group:\n${lines.join("\n")}\nSlowest files:\n${slowest.join("\n")}\n`;
  }
}
