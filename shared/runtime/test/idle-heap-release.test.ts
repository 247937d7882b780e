import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { releaseJudge } from "../src/idle-heap-release.ts";

const run = promisify(execFile);
const child = fileURLToPath(new URL("./support/heap-burst.ts", import.meta.url));

type Burst = {
  peak: number;
  secondPeak?: number;
  after: number;
  utilization: number;
  releases: number;
  gcExposed: string;
};

async function burst(
  mode: "idle" | "busy" | "waiting" | "twice" | "native",
  trim: "trim" | "notrim" = "trim",
): Promise<Burst> {
  const { stdout } = await run(process.execPath, [child, mode, trim], { timeout: 60_000 });
  return JSON.parse(stdout) as Burst;
}

const MB = 1024 * 1024;

describe("startIdleHeapRelease", () => {
  it("gives a freed burst of heap back to the system once the process is idle", async () => {
    const r = await burst("idle");
    expect(r.peak).toBeGreaterThan(200);
    expect(r.releases).toBeGreaterThanOrEqual(1);
    expect(r.after).toBeLessThan(r.peak - 100);
  }, 60_000);

  it("does not collect while the main thread computes", async () => {
    const r = await burst("busy");
    expect(r.releases).toBe(0);
  }, 60_000);

  it("releases while the event loop looks busy but the thread uses no CPU (a loaded machine)", async () => {
    const r = await burst("waiting");
    // The loop was blocked most of the time: by event-loop utilisation this process was busy.
    expect(r.utilization).toBeGreaterThan(0.5);
    expect(r.releases).toBeGreaterThanOrEqual(1);
    expect(r.after).toBeLessThan(r.peak - 100);
  }, 60_000);

  it("releases again after the resident set grew once more", async () => {
    const r = await burst("twice");
    expect(r.secondPeak).toBeGreaterThan(200);
    expect(r.releases).toBe(2);
    expect(r.after).toBeLessThan(r.secondPeak! - 100);
  }, 60_000);

  it("gives back the free pages a burst of Buffers left between live ones inside glibc's heap", async () => {
    // 94 MB of Buffers, one in 50 kept: free() can return none of it, a collection alone neither.
    const [trimmed, untrimmed] = await Promise.all([burst("native"), burst("native", "notrim")]);
    expect(trimmed.peak).toBeGreaterThan(90);
    expect(trimmed.releases).toBeGreaterThanOrEqual(1);
    expect(untrimmed.releases).toBeGreaterThanOrEqual(1);
    expect(untrimmed.after).toBeGreaterThan(untrimmed.peak - 20);
    expect(trimmed.after).toBeLessThan(trimmed.peak - 60);
  }, 60_000);

  it("does not expose gc() to the process's own code", async () => {
    expect((await burst("idle")).gcExposed).toBe("undefined");
  }, 60_000);
});

describe("releaseJudge", () => {
  const judge = () => releaseJudge({ idleCpu: 0.05, idlePeriods: 2, minGrowthBytes: 4 * MB });
  const idle = (rssMb: number) => ({ cpuShare: 0.01, rss: rssMb * MB });
  const busy = (rssMb: number) => ({ cpuShare: 0.3, rss: rssMb * MB });

  it("releases after two idle periods in a row, not after one", () => {
    const j = judge();
    expect(j.period(idle(150))).toBe(false);
    expect(j.period(idle(150))).toBe(true);
  });

  it("starts counting again after a busy period", () => {
    const j = judge();
    expect([idle(150), busy(150), idle(150), idle(150)].map((s) => j.period(s))).toEqual([
      false,
      false,
      false,
      true,
    ]);
  });

  it("counts a period at exactly the threshold as idle", () => {
    const j = judge();
    j.period({ cpuShare: 0.05, rss: 150 * MB });
    expect(j.period({ cpuShare: 0.05, rss: 150 * MB })).toBe(true);
  });

  it("after a release, waits for 4 MB of growth above the lowest resident set since", () => {
    const j = judge();
    j.released(100 * MB);
    expect([idle(103), idle(103.9)].map((s) => j.period(s))).toEqual([false, false]);
    // The resident set fell below the release's: growth counts from there.
    expect([idle(98), idle(101), idle(101.9)].map((s) => j.period(s))).toEqual([
      false,
      false,
      false,
    ]);
    expect(j.period(idle(102))).toBe(true);
  });

  it("after a release, needs two idle periods again", () => {
    const j = judge();
    j.period(idle(150));
    j.period(idle(150));
    j.released(100 * MB);
    expect(j.period(idle(120))).toBe(false);
    expect(j.period(idle(120))).toBe(true);
  });
});
