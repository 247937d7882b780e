// One SVG plot per benchmark scenario for docs/performance/results.md: each figure beside the
// bare baseline measured in the same run, as horizontal bars. Plain SVG text, no dependency.
import type { BenchRow } from "./bench-report.ts";
import { formatNumber, ratioOf } from "./report-table.ts";

/** The part of a row a plot draws. */
export type PlotRow = Pick<BenchRow, "metric" | "value" | "unit" | "baseline">;

export interface PlotPanel {
  title: string;
  rows: PlotRow[];
}

/** `&`, `<`, `>`, `"` and `'` as XML entities. */
export function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!,
  );
}

/** A file name part: lower case ASCII letters and digits, dashes between, at most 80 characters. */
export function slug(text: string): string {
  return (
    text
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 80)
      .replace(/-+$/, "") || "scenario"
  );
}

const PERCENTILE = /(?:^|\s)(?:p(\d+(?:\.\d+)?)|median)$/i;
const percentileOf = (metric: string): number | null => {
  const match = PERCENTILE.exec(metric.trim());
  return match ? Number(match[1] ?? 50) : null;
};

/** The load a percentile was measured at, before a colon ("50% of max: p99"); "" if none. */
const percentileContext = (metric: string): string =>
  /^(.+?):\s*(?:p\d+(?:\.\d+)?|median)$/i.exec(metric.trim())?.[1]?.trim() ?? "";

/**
 * A scenario's rows grouped for plotting: latency percentiles (p50, p99, p99.9, median; lowest
 * first; one panel per load they were measured at, e.g. "50% of max: p99"), then throughput, then
 * the other metrics; one panel per unit within each, so the bars of a panel share a scale.
 */
export function plotPanels(rows: PlotRow[]): PlotPanel[] {
  const groups = new Map<string, { kind: number; context: string; rows: PlotRow[] }>();
  for (const row of rows) {
    const kind = percentileOf(row.metric) !== null ? 0 : /throughput/i.test(row.metric) ? 1 : 2;
    const context = kind === 0 ? percentileContext(row.metric) : "";
    const key = `${kind}\u0000${context}\u0000${row.unit}`;
    const group = groups.get(key) ?? { kind, context, rows: [] };
    group.rows.push(row);
    groups.set(key, group);
  }
  return [...groups.values()]
    .sort((a, b) => a.kind - b.kind)
    .map(({ kind, context, rows: panelRows }) => {
      const unit = panelRows[0]!.unit;
      if (kind === 0)
        return {
          title: context ? `latency at ${context} (${unit})` : `latency (${unit})`,
          rows: [...panelRows].sort((a, b) => percentileOf(a.metric)! - percentileOf(b.metric)!),
        };
      if (kind === 1) return { title: `throughput (${unit})`, rows: panelRows };
      const metrics = [...new Set(panelRows.map((r) => r.metric))];
      return {
        title: metrics.length === 1 ? `${metrics[0]} (${unit})` : `in ${unit}`,
        rows: panelRows,
      };
    });
}

const COLOURS = { value: "#2f6fb0", baseline: "#a3acb9", text: "#1f2328", muted: "#59636e" };
const FONT = 12;
/** A generous average glyph width at FONT px, to size the drawing without measuring text. */
const CHAR = 7;
const PAD = 16;
const BAR_AREA = 320;
const BAR = 13;

const finite = (n: number | undefined): n is number => n !== undefined && Number.isFinite(n);
const amount = (n: number, unit: string) => `${formatNumber(n)}${unit ? ` ${unit}` : ""}`;
/** The value's figure, with its ratio to the baseline when there is one. */
const valueCaption = (row: PlotRow) => {
  const ratio = ratioOf(row);
  return ratio === "–" ? amount(row.value, row.unit) : `${amount(row.value, row.unit)} (${ratio})`;
};

/**
 * The plot of one scenario: per metric, a bar for the value and one for its baseline (same run),
 * scaled to the largest figure of its panel, each labelled with its figure (and the ratio).
 */
export function scenarioPlot(bench: string, scenario: string, rows: PlotRow[]): string {
  const panels = plotPanels(rows);
  // Without any baseline, each metric is one bar, and the legend says so once.
  const withBaseline = rows.some((r) => finite(r.baseline));
  const labels = panels.flatMap((p) => p.rows.map((r) => r.metric));
  const labelWidth = Math.max(90, ...labels.map((l) => l.length * CHAR)) + 12;
  const figures = panels.flatMap((p) =>
    p.rows.flatMap((r) => [
      valueCaption(r),
      finite(r.baseline) ? amount(r.baseline, r.unit) : "no baseline",
    ]),
  );
  const figureWidth = Math.max(80, ...figures.map((f) => f.length * CHAR)) + 8;
  const width = Math.ceil(
    Math.max(
      PAD * 2 + labelWidth + BAR_AREA + 8 + figureWidth,
      PAD * 2 + (scenario.length + 2) * (CHAR + 1),
    ),
  );
  const out: string[] = [];
  const text = (x: number, y: number, content: string, attrs = "") =>
    out.push(`<text x="${x}" y="${y}"${attrs}>${escapeXml(content)}</text>`);
  text(PAD, 22, bench, ` fill="${COLOURS.muted}"`);
  text(PAD, 42, scenario, ` font-size="14" font-weight="bold"`);
  let y = 62;
  if (panels.length === 0) {
    text(PAD, y + 10, "no figures recorded for this scenario", ` fill="${COLOURS.muted}"`);
    y += 30;
  } else {
    out.push(
      `<rect x="${PAD}" y="${y}" width="12" height="12" fill="${COLOURS.value}" data-legend="value"/>`,
    );
    text(PAD + 18, y + 10, "measured");
    if (withBaseline) {
      out.push(
        `<rect x="${PAD + 100}" y="${y}" width="12" height="12" fill="${COLOURS.baseline}" data-legend="baseline"/>`,
      );
      text(PAD + 118, y + 10, "baseline, same run");
    } else text(PAD + 100, y + 10, "no baseline in this scenario", ` fill="${COLOURS.muted}"`);
    y += 30;
  }
  const barX = PAD + labelWidth;
  for (const panel of panels) {
    text(PAD, y + 10, panel.title, ` font-weight="bold"`);
    y += 20;
    const scale = Math.max(0, ...panel.rows.flatMap((r) => [r.value, r.baseline]).filter(finite));
    const barWidth = (n: number) =>
      scale > 0 && n > 0 ? Math.max(1, Math.round((BAR_AREA * n * 10) / scale) / 10) : 0;
    for (const row of panel.rows) {
      const metric = escapeXml(row.metric);
      text(PAD, y + 11, row.metric);
      const bars: Array<["value" | "baseline", number | undefined, string]> = [
        ["value", row.value, valueCaption(row)],
      ];
      if (withBaseline)
        bars.push([
          "baseline",
          row.baseline,
          finite(row.baseline) ? amount(row.baseline, row.unit) : "",
        ]);
      for (const [series, figure, caption] of bars) {
        if (finite(figure)) {
          const w = barWidth(figure);
          out.push(
            `<rect x="${barX}" y="${y}" width="${w}" height="${BAR}" fill="${COLOURS[series]}" data-series="${series}" data-metric="${metric}"/>`,
          );
          text(barX + w + 6, y + 11, caption);
        } else {
          text(
            barX,
            y + 11,
            series === "value" ? String(figure) : "no baseline",
            ` fill="${COLOURS.muted}" font-style="italic"`,
          );
        }
        y += BAR + 3;
      }
      y += 8;
    }
    y += 6;
  }
  return svgDocument(`${bench}: ${scenario}`, width, y + PAD - 8, out);
}

/** A standalone SVG document: white background, the title for screen readers, then `body`. */
export function svgDocument(title: string, width: number, height: number, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}" font-family="Helvetica, Arial, sans-serif" font-size="${FONT}" fill="${COLOURS.text}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    ...body,
    "</svg>",
    "",
  ].join("\n");
}
