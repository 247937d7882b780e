import { describe, expect, it } from "vitest";
import { cpuProbeMicros, parseCpuTicks, stealPercent } from "../src/machine-probe.ts";

describe("parseCpuTicks", () => {
  it("sums the eight counters of the cpu line and keeps steal, the eighth", () => {
    const stat = "cpu  100 5 50 800 10 0 5 30 0 0\ncpu0 50 2 25 400 5 0 2 15 0 0\nintr 1 2 3\n";
    expect(parseCpuTicks(stat)).toEqual({ total: 1000, steal: 30 });
  });

  it("is null for text without a whole cpu line", () => {
    expect(parseCpuTicks("intr 1 2 3\n")).toBeNull();
    expect(parseCpuTicks("cpu  1 2 3\n")).toBeNull();
    expect(parseCpuTicks("cpu  1 2 3 4 5 6 7 x\n")).toBeNull();
  });
});

describe("stealPercent", () => {
  it("is the stolen share of the time between two readings", () => {
    expect(stealPercent({ total: 1000, steal: 30 }, { total: 1400, steal: 130 })).toBe(25);
  });

  it("is null without two readings or without time between them", () => {
    expect(stealPercent(null, { total: 1, steal: 0 })).toBeNull();
    expect(stealPercent({ total: 5, steal: 0 }, { total: 5, steal: 0 })).toBeNull();
  });
});

describe("cpuProbeMicros", () => {
  it("times the fixed workload in whole microseconds, within sane bounds", () => {
    const micros = cpuProbeMicros();
    expect(Number.isInteger(micros)).toBe(true);
    // A page of ~100 KB of JSON takes tens of microseconds at least, and never seconds.
    expect(micros).toBeGreaterThan(10);
    expect(micros).toBeLessThan(1_000_000);
  });
});
