import { describe, expect, it } from "vitest";
import { loadRows } from "../src/growth-load.ts";
import { serviceMemoryRows } from "../src/growth-service.ts";
import { queryCostRows, type QueryCost } from "../src/growth-queries.ts";
import {
  deepPageOf,
  failed,
  GROWTH_SIZES,
  growthSizes,
  shortfall,
  timeOrFail,
  type GrowthSize,
  type Timing,
} from "../src/index.ts";

const timing = (median: number, p99 = median): Timing => ({ runs: 5, median, p99, min: median });

describe("the growth benchmarks' shared parts", () => {
  it("times a step that fails as one failed run of its time to failure", async () => {
    let calls = 0;
    const t = await timeOrFail(async () => {
      calls++;
      if (calls === 3) throw new Error("query timeout");
    }, 5);
    expect(failed(t)).toBe(true);
    expect(t.median).toBe(t.p99);
    const ok = await timeOrFail(async () => {}, 4);
    expect(failed(ok)).toBe(false);
    expect(ok.runs).toBe(4);
  });

  it("puts the deep page at 90 % of the list, page 1 for a list of one page", () => {
    expect(deepPageOf(1_000, 25)).toBe(36);
    expect(deepPageOf(210_034, 25)).toBe(7_561);
    expect(deepPageOf(10, 25)).toBe(1);
  });

  it("marks a source step met only under the query timeout and not failed", () => {
    const cost: QueryCost = {
      scenario: "visible=true",
      path: "/v1/practices?visible=true&per_page=25&page=1",
      total: 198_053,
      page: timing(1.1),
      count: timing(4_604.9, 5_254.4),
      marks: { runs: 0, median: 30_000, p99: 30_000, min: 30_000 },
      plan: "",
    };
    const rows = queryCostRows("practices at 1,000,000 vacancies", [cost], 5_000);
    expect(rows.map((r) => [r.metric, r.met])).toEqual([
      ["page median", true],
      ["COUNT median", false],
      ["page marks read (failed after)", false],
    ]);
    expect(rows[0]?.scenario).toBe("practices at 1,000,000 vacancies: visible=true, source alone");
  });

  it("fails a list's p99 row when any response was not 200, and names its page size", () => {
    const result = { name: "province", maxRps: 40, rate: 20, p50: 9, p99: 50, p999: 60, peakMb: 1 };
    const clean = loadRows("s", [{ ...result, errors: 0 }], 100, 25);
    expect(clean.map((r) => r.met)).toEqual([undefined, true]);
    expect(clean[1]?.scenario).toBe("s: province, per_page=25");
    const erring = loadRows("s", [{ ...result, errors: 3 }], 100, 25);
    expect(erring.map((r) => [r.metric, r.met])).toEqual([
      ["max throughput (wrk)", undefined],
      ["p99 at 50 % of max", false],
      ["errors", false],
    ]);
  });

  it("names the sizes a run asks for, in size order, and refuses an unknown one", () => {
    expect(growthSizes("1m,10k").map((s) => s.name)).toEqual(["10k", "1m"]);
    expect(() => growthSizes("10k,2m")).toThrow(/2m/);
  });

  it("flags a size whose sweep leaves less margin below the pod limit than the size before", () => {
    const [, hundredK, million] = GROWTH_SIZES as [GrowthSize, GrowthSize, GrowthSize];
    const service = {
      component: "vacancies",
      entry: "",
      scope: "",
      subject: "1,000,000 vacancies",
    };
    const memory = (sweepPeakMb: number) => ({
      sweepPeakMb,
      sweepMs: 30_000,
      idleMb: 104,
      load: [],
    });
    const margin = (peak: number, before?: number) =>
      serviceMemoryRows(
        million,
        service,
        memory(peak),
        {
          ids: () => 0,
          idLength: 36,
          ...(before === undefined ? {} : { measured: { size: hundredK, sweepPeakMb: before } }),
        },
        () => {},
      ).find((r) => r.metric.startsWith("margin below the pod limit"));
    const limit = 384;
    expect(margin(255, 175)).toMatchObject({
      value: limit - 255,
      baseline: limit - 175,
      met: false,
    });
    expect(shortfall(margin(255, 175)!)).toBe("by 70 MB");
    expect(margin(180, 175)).toMatchObject({ met: true });
    expect(margin(255)).toBeUndefined();
  });
});
