import { describe, expect, it } from "vitest";
import { escapeXml, plotPanels, scenarioPlot, slug, type PlotRow } from "../src/index.ts";

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
