import { describe, expect, it } from "vitest";
import {
  curvePlot,
  escapeXml,
  isCurve,
  plotPanels,
  scenarioPlot,
  slug,
  type CurveRow,
  type PlotRow,
} from "../src/index.ts";

/** Width of the bar of `series` for `metric`, from the data attributes the plot writes. */
function barWidth(svg: string, series: "value" | "baseline", metric: string): number | undefined {
  for (const rect of svg.matchAll(/<rect [^>]*>/g)) {
    const tag = rect[0];
    if (tag.includes(`data-series="${series}"`) && tag.includes(`data-metric="${metric}"`))
      return Number(/ width="([^"]+)"/.exec(tag)![1]);
  }
  return undefined;
}

const readRows: PlotRow[] = [
  { metric: "throughput", value: 500, unit: "req/s", baseline: 250 },
  { metric: "p50", value: 10, unit: "ms", baseline: 20 },
  { metric: "p99", value: 40, unit: "ms", baseline: 80 },
  { metric: "peak RSS", value: 150, unit: "MB" },
];

describe("scenarioPlot", () => {
  it("scales each bar to the largest figure of its panel", () => {
    const svg = scenarioPlot("vacancies read", "list page 1", readRows);
    const full = barWidth(svg, "baseline", "p99")!;
    expect(full).toBeGreaterThan(100);
    expect(barWidth(svg, "value", "p99")).toBeCloseTo(full / 2, 0);
    expect(barWidth(svg, "baseline", "p50")).toBeCloseTo(full / 4, 0);
    expect(barWidth(svg, "value", "p50")).toBeCloseTo(full / 8, 0);
    // Throughput has a panel (and scale) of its own: its larger figure fills the bar area.
    expect(barWidth(svg, "value", "throughput")).toBe(full);
    expect(barWidth(svg, "baseline", "throughput")).toBeCloseTo(full / 2, 0);
  });

  it("labels every bar with its figure, and the value with its ratio to the baseline", () => {
    const svg = scenarioPlot("vacancies read", "list page 1", readRows);
    expect(svg).toContain(">500 req/s (2.00×)</text>");
    expect(svg).toContain(">250 req/s</text>");
    expect(svg).toContain(">40 ms (0.50×)</text>");
  });

  it("draws a row without a baseline as its value alone, marked so", () => {
    const svg = scenarioPlot("vacancies read", "list page 1", readRows);
    expect(barWidth(svg, "value", "peak RSS")).toBeGreaterThan(0);
    expect(barWidth(svg, "baseline", "peak RSS")).toBeUndefined();
    expect(svg).toContain(">150 MB</text>");
    expect(svg).toContain(">no baseline</text>");
  });

  it("draws a scenario without any baseline as one bar per metric, saying so once", () => {
    const svg = scenarioPlot("idle memory", "auth process", [
      { metric: "idle RSS", value: 92.7, unit: "MB" },
      { metric: "of which file-backed", value: 53, unit: "MB" },
    ]);
    expect(barWidth(svg, "value", "idle RSS")).toBeGreaterThan(
      barWidth(svg, "value", "of which file-backed")!,
    );
    expect(svg).not.toContain('data-series="baseline"');
    expect(svg).not.toContain('data-legend="baseline"');
    expect(svg).not.toContain(">no baseline</text>");
    expect(svg).toContain(">no baseline in this scenario</text>");
  });

  it("escapes the labels as XML", () => {
    const svg = scenarioPlot("a & b", "list <page> \"1\" & '2'", [
      { metric: "p99 <x>", value: 1, unit: "ms", baseline: 2 },
    ]);
    expect(svg).toContain(">list &lt;page&gt; &quot;1&quot; &amp; &apos;2&apos;</text>");
    expect(svg).toContain(">a &amp; b</text>");
    expect(svg).toContain('data-metric="p99 &lt;x&gt;"');
    // Every & starts an entity, and no < opens anything but an element.
    expect(svg).not.toMatch(/&(?!amp;|lt;|gt;|quot;|apos;)/);
    expect(svg).not.toMatch(/<(?![a-z/])/);
  });

  it("draws an empty scenario as a note, not a crash", () => {
    const svg = scenarioPlot("b", "nothing measured", []);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain("no figures recorded for this scenario");
    expect(svg).not.toContain("data-series");
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
  });

  it("never writes NaN into an attribute", () => {
    const svg = scenarioPlot("b", "s", [
      { metric: "p99", value: Number.NaN, unit: "ms", baseline: 0 },
      { metric: "throughput", value: 0, unit: "req/s", baseline: 0 },
    ]);
    expect(svg).not.toMatch(/="[^"]*NaN/);
    expect(barWidth(svg, "value", "throughput")).toBe(0);
  });
});

describe("plotPanels", () => {
  it("puts latency percentiles first, lowest first, then throughput, then the rest by unit", () => {
    const panels = plotPanels([
      { metric: "idle RSS", value: 90, unit: "MB" },
      { metric: "throughput", value: 1, unit: "req/s" },
      { metric: "p99.9", value: 30, unit: "ms" },
      { metric: "p50", value: 3, unit: "ms" },
      { metric: "p99", value: 9, unit: "ms" },
      { metric: "peak RSS under load", value: 150, unit: "MB" },
    ]);
    expect(panels.map((p) => p.title)).toEqual(["latency (ms)", "throughput (req/s)", "in MB"]);
    expect(panels[0]!.rows.map((r) => r.metric)).toEqual(["p50", "p99", "p99.9"]);
  });

  it("gives the percentiles measured at each load their own panel", () => {
    const panels = plotPanels([
      { metric: "throughput (max, wrk)", value: 900, unit: "req/s" },
      { metric: "50% of max: p99", value: 9, unit: "ms", baseline: 4 },
      { metric: "50% of max: p50", value: 3, unit: "ms", baseline: 2 },
      { metric: "80% of max: p99.9", value: 40, unit: "ms" },
      { metric: "80% of max: p50", value: 5, unit: "ms" },
    ]);
    expect(panels.map((p) => p.title)).toEqual([
      "latency at 50% of max (ms)",
      "latency at 80% of max (ms)",
      "throughput (req/s)",
    ]);
    expect(panels[0]!.rows.map((r) => r.metric)).toEqual(["50% of max: p50", "50% of max: p99"]);
    expect(panels[1]!.rows.map((r) => r.metric)).toEqual(["80% of max: p50", "80% of max: p99.9"]);
  });
});

describe("escapeXml and slug", () => {
  it("escapes the five XML specials", () => {
    expect(escapeXml(`<a href="x">'&'</a>`)).toBe(
      "&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;",
    );
  });

  it("makes a file name part of letters, digits and dashes", () => {
    expect(slug("list p1-20, per_page=25 (5 s totals cache)")).toBe(
      "list-p1-20-per-page-25-5-s-totals-cache",
    );
    expect(slug("Événement ×10")).toBe("evenement-10");
    expect(slug("x".repeat(200))).toHaveLength(80);
    expect(slug("???")).toBe("scenario");
  });
});

describe("curvePlot", () => {
  const unit = "deliveries/s";
  const curve: CurveRow[] = [400, 800, 1600, 3200].flatMap((x, i) => [
    { metric: "throughput", value: Math.min(x, 2000), unit, x, xUnit: unit },
    { metric: "event-to-POST p50", value: [5, 6, 9, 900][i]!, unit: "ms", x, xUnit: unit },
    { metric: "event-to-POST p99", value: [20, 25, 60, 4000][i]!, unit: "ms", x, xUnit: unit },
  ]);
  /** The points of one series: [x, cx, cy] from the circles' data attributes. */
  const points = (svg: string, series: string) =>
    [...svg.matchAll(/<circle [^>]*>/g)]
      .map((m) => m[0])
      .filter((tag) => tag.includes(`data-series="${series}"`))
      .map((tag) =>
        ["data-x", "cx", "cy"].map((a) => Number(new RegExp(` ${a}="([^"]+)"`).exec(tag)![1])),
      );

  it("is chosen for a scenario whose rows all have an x, and only then", () => {
    expect(isCurve(curve)).toBe(true);
    expect(isCurve(readRows)).toBe(false);
    expect(isCurve([...curve, { metric: "peak RSS", value: 1, unit: "MB" }])).toBe(false);
  });

  it("draws one line per metric, its points left to right by x", () => {
    const svg = curvePlot("webhooks-dispatch", "load curve", curve);
    for (const series of ["throughput", "event-to-POST p50", "event-to-POST p99"]) {
      const p = points(svg, series);
      expect(p.map(([x]) => x)).toEqual([400, 800, 1600, 3200]);
      for (let i = 1; i < p.length; i++) expect(p[i]![1]).toBeGreaterThan(p[i - 1]![1]!);
    }
    expect(svg.match(/<polyline /g)).toHaveLength(3);
  });

  it("shows saturation: throughput leaves the achieved = offered line, on a linear scale", () => {
    const svg = curvePlot("webhooks-dispatch", "load curve", curve);
    expect(svg).toContain('data-series="offered"');
    const [a, b, c, d] = points(svg, "throughput");
    // Linear: equal steps of throughput are equal steps of height (400 → 800 → 1600: 1 : 2).
    expect((b![2]! - c![2]!) / (a![2]! - b![2]!)).toBeCloseTo(2, 1);
    // Past saturation it flattens: 1,600 → 2,000 achieved while the offered load doubles.
    expect(d![2]!).toBeLessThan(c![2]!);
    expect(svg).toContain("throughput (deliveries/s)</text>");
  });

  it("draws latency over decades by a log scale when it spans more than 50×", () => {
    const svg = curvePlot("webhooks-dispatch", "load curve", curve);
    expect(svg).toContain("latency (ms), log scale</text>");
    const [a, b] = points(svg, "event-to-POST p50");
    const [, , , p99Last] = points(svg, "event-to-POST p99");
    const [, , , p50Last] = points(svg, "event-to-POST p50");
    // 5 → 6 ms is a small step, and the 4000 ms p99 stays inside the panel above the 900 ms p50.
    expect(a![2]! - b![2]!).toBeLessThan(20);
    expect(p99Last![2]!).toBeLessThan(p50Last![2]!);
    expect(svg).not.toContain("NaN");
  });
});
