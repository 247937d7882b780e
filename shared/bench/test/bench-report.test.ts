import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  MemorySampler,
  memoryRows,
  processCpuMs,
  processMemory,
  readBenchRows,
  startBenchProcess,
} from "../src/bench-report.ts";

const dir = mkdtempSync(join(tmpdir(), "bench-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `code` (ESM) in a child Node with `env` added; it may import the module under test. */
function runChild(code: string, env: Record<string, string> = {}, cwd = dir): void {
  const script = join(cwd, `child-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(script, code);
  const inherited = { ...process.env };
  delete inherited.BENCH_RESULTS_FILE;
  execFileSync(process.execPath, [script], { cwd, env: { ...inherited, ...env }, stdio: "pipe" });
}

const moduleUrl = new URL("../src/bench-report.ts", import.meta.url).href;

describe("recordBenchRows", () => {
  it("appends the rows of each call, tagged with the bench, to BENCH_RESULTS_FILE", () => {
    const file = join(dir, "rows.jsonl");
    const code = (bench: string, value: number) =>
      `import { recordBenchRows } from ${JSON.stringify(moduleUrl)};
       recordBenchRows(${JSON.stringify(bench)}, [{ scenario: "s", metric: "throughput", value: ${value}, unit: "req/s", baseline: 200, target: "≥ 60% of baseline", met: true }, { scenario: "s", metric: "p99", value: 12.5, unit: "ms" }]);`;
    runChild(code("first", 150), { BENCH_RESULTS_FILE: file });
    runChild(code("second", 170), { BENCH_RESULTS_FILE: file });
    const rows = readBenchRows(file);
    expect(rows.map((r) => [r.bench, r.metric, r.value])).toEqual([
      ["first", "throughput", 150],
      ["first", "p99", 12.5],
      ["second", "throughput", 170],
      ["second", "p99", 12.5],
    ]);
    expect(rows[0]).toMatchObject({
      baseline: 200,
      target: "≥ 60% of baseline",
      met: true,
      unit: "req/s",
      scenario: "s",
    });
  });

  it("writes nothing when BENCH_RESULTS_FILE is not set", () => {
    const empty = join(dir, "unset");
    mkdirSync(empty);
    runChild(
      `import { recordBenchRows } from ${JSON.stringify(moduleUrl)}; recordBenchRows("b", [{ scenario: "s", metric: "m", value: 1, unit: "u" }]); console.log("recorded");`,
      {},
      empty,
    );
    expect(readdirSync(empty).filter((f) => !f.startsWith("child-"))).toEqual([]);
  });

  it("skips a line a crashed bench left half-written", () => {
    const file = join(dir, "torn.jsonl");
    writeFileSync(
      file,
      `${JSON.stringify({ bench: "b", scenario: "s", metric: "m", value: 1, unit: "u" })}\n{"bench":"b","scen`,
    );
    expect(readBenchRows(file)).toHaveLength(1);
    expect(readBenchRows(join(dir, "missing.jsonl"))).toEqual([]);
  });
});

describe("process memory and CPU from /proc", () => {
  it("reads this process's RSS close to what Node itself reports", () => {
    const memory = processMemory(process.pid);
    const own = process.memoryUsage().rss / 2 ** 20;
    expect(memory?.rssMb).toBeGreaterThan(own * 0.8);
    expect(memory?.rssMb).toBeLessThan(own * 1.2);
    expect(memory?.peakMb).toBeGreaterThanOrEqual(memory?.rssMb ?? Infinity);
  });

  it("answers null for a process that does not exist", () => {
    expect(processMemory(2 ** 22 + 12_345)).toBeNull();
    expect(processCpuMs(2 ** 22 + 12_345)).toBeNaN();
  });

  it(
    "samples the peak of a child that grows by 200 MB, and its CPU time",
    { timeout: 30_000 },
    async () => {
      const script = join(dir, "grow.ts");
      // Busy for 300 ms of CPU, then holds 200 MB of touched memory until told to exit.
      writeFileSync(
        script,
        `const t = process.cpuUsage(); while ((process.cpuUsage(t).user + process.cpuUsage(t).system) < 300_000);
      const keep = Buffer.alloc(200 * 2 ** 20, 1); console.log("grown " + keep.length); setInterval(() => {}, 1000);`,
      );
      const lines: string[] = [];
      const child = startBenchProcess([script], {
        env: {},
        keep: /grown/,
        onLine: (line) => lines.push(line),
      });
      try {
        const sampler = new MemorySampler(child.pid, 50);
        const before = sampler.current();
        await child.waitForLine(/grown/, 20_000);
        expect(lines).toContain(`grown ${200 * 2 ** 20}`);
        expect(sampler.peak() - before).toBeGreaterThan(150);
        sampler.reset();
        expect(sampler.peak()).toBeGreaterThan(150);
        sampler.stop();
        expect(processCpuMs(child.pid)).toBeGreaterThan(250);
      } finally {
        await child.stop();
      }
      expect(child.child.exitCode !== null || child.child.signalCode !== null).toBe(true);
    },
  );
});

describe("memoryRows", () => {
  it("judges idle RSS against 120 MB and the peak under load against 200 MB", () => {
    const rows = memoryRows("x process", { idleMb: 119.96, peakMb: 200.04, baselinePeakMb: 80 });
    expect(rows).toEqual([
      {
        scenario: "x process",
        metric: "idle RSS",
        value: 120,
        unit: "MB",
        target: "< 120 MB",
        met: true,
      },
      {
        scenario: "x process",
        metric: "peak RSS under load",
        value: 200,
        unit: "MB",
        baseline: 80,
        target: "< 200 MB",
        met: false,
      },
    ]);
  });
});

describe("startBenchProcess under a memory limit", () => {
  it("runs the process in a memory cgroup of that size from its start, as a pod's limit does, and removes it after", async () => {
    const script = join(dir, "limits.ts");
    writeFileSync(
      script,
      `console.log(JSON.stringify({ limit: process.constrainedMemory(), cgroup: (await import("node:fs")).readFileSync("/proc/self/cgroup", "utf8") }));\nsetInterval(() => {}, 1000);`,
    );
    const limit = 384 * 2 ** 20;
    const child = startBenchProcess([script], { env: {}, keep: /limit/, memoryLimitBytes: limit });
    try {
      const seen = JSON.parse(await child.waitForLine(/limit/, 10_000)) as {
        limit: number;
        cgroup: string;
      };
      if (child.memoryLimit === null) {
        // A machine where no cgroup can be made (not root, no v1 memory controller): unconstrained,
        // and it says so.
        expect(seen.cgroup).not.toMatch(/memory:\/bench-/);
      } else {
        expect(child.memoryLimit).toBe(limit);
        expect(seen.limit).toBe(limit);
        expect(seen.cgroup).toMatch(new RegExp(`memory:/bench-${process.pid}-\\d+`));
      }
    } finally {
      await child.stop();
    }
    const left = readdirSync("/sys/fs/cgroup/memory", { withFileTypes: true }).filter(
      (e) => e.isDirectory() && e.name.startsWith(`bench-${process.pid}-`),
    );
    await expect
      .poll(
        () => left.filter((e) => readdirSync("/sys/fs/cgroup/memory").includes(e.name)).length,
        { timeout: 5_000 },
      )
      .toBe(0);
  });
});
