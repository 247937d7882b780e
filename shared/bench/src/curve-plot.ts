// The line plot of a scenario whose rows were measured at several points of a variable (x), such
// as throughput and latency against offered load: one panel per unit, one line per metric. Plain
// SVG text, like plot.ts.
import { escapeXml, plotPanels, svgDocument, type PlotRow } from "./plot.ts";
import { formatNumber } from "./report-table.ts";

/** A row measured at a point `x` (in `xUnit`) of the scenario's variable. */
export type CurveRow = PlotRow & { x: number; xUnit?: string | undefined };

const COLOURS = ["#2f6fb0", "#d4691e", "#3c9a5f", "#8e5bb5", "#b5475b"];
const MUTED = "#59636e";
const PAD = 16;
const LEFT = 72;
const PLOT_W = 480;
const PLOT_H = 170;
const LEGEND_W = 190;

/** True when every row has a finite x: the scenario is drawn as a curve, not as bars. */
export function isCurve(rows: Array<PlotRow & { x?: number }>): rows is CurveRow[] {
  return rows.length > 0 && rows.every((r) => typeof r.x === "number" && Number.isFinite(r.x));
}

/** Round tick values covering [0, max]. */
function linearTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let t = 0; t <= max + step * 1e-9; t += step) ticks.push(t);
  if (ticks[ticks.length - 1]! < max) ticks.push(ticks[ticks.length - 1]! + step);
  return ticks;
}

/** A y axis: linear from 0, or by decades when allowed and the figures span more than 50×. */
function yAxis(values: number[], allowLog: boolean) {
  const positive = values.filter((v) => v > 0);
  const min = Math.min(...positive);
  const max = Math.max(...values, 0);
  if (allowLog && positive.length > 0 && max / min > 50) {
    const lo = 10 ** Math.floor(Math.log10(min));
    const hi = 10 ** Math.ceil(Math.log10(max));
    const ticks: number[] = [];
    for (let t = lo; t <= hi * 1.0001; t *= 10) ticks.push(t);
    const span = Math.log10(hi) - Math.log10(lo);
    const at = (v: number) => (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / span;
    return { log: true, ticks, at };
  }
  const ticks = linearTicks(max);
  const top = ticks[ticks.length - 1]!;
  return { log: false, ticks, at: (v: number) => v / top };
}

/**
 * The curve plot of one scenario: per unit a panel with one line per metric over x; a throughput
 * panel also draws where achieved would equal offered (y = x), so saturation shows as the line
 * leaving it.
 */
export function curvePlot(bench: string, scenario: string, rows: CurveRow[]): string {
  const xUnit = rows.find((r) => r.xUnit)?.xUnit ?? "";
  const xTicks = linearTicks(Math.max(...rows.map((r) => r.x)));
  const xMax = xTicks[xTicks.length - 1]!;
  const xAt = (x: number) => LEFT + (PLOT_W * x) / xMax;
  const width = LEFT + PLOT_W + 24 + LEGEND_W + PAD;
  const out: string[] = [];
  const text = (x: number, y: number, content: string, attrs = "") =>
    out.push(`<text x="${x}" y="${y}"${attrs}>${escapeXml(content)}</text>`);
  text(PAD, 22, bench, ` fill="${MUTED}"`);
  text(PAD, 42, scenario, ` font-size="14" font-weight="bold"`);
  let top = 62;
  for (const panel of plotPanels(rows)) {
    const panelRows = panel.rows as CurveRow[];
    const metrics = [...new Set(panelRows.map((r) => r.metric))];
    const throughput = /^throughput/.test(panel.title);
    const y = yAxis(
      [...panelRows.map((r) => r.value), ...(throughput ? panelRows.map((r) => r.x) : [])],
      !throughput,
    );
    text(PAD, top + 10, `${panel.title}${y.log ? ", log scale" : ""}`, ` font-weight="bold"`);
    const plotTop = top + 24;
    const yAt = (v: number) => plotTop + PLOT_H - PLOT_H * Math.min(1, y.at(v));
    out.push(
      `<rect x="${LEFT}" y="${plotTop}" width="${PLOT_W}" height="${PLOT_H}" fill="none" stroke="#d0d7de"/>`,
    );
    for (const t of y.ticks) {
      const ty = yAt(t).toFixed(1);
      out.push(`<line x1="${LEFT}" x2="${LEFT + PLOT_W}" y1="${ty}" y2="${ty}" stroke="#eef1f4"/>`);
      text(LEFT - 6, Number(ty) + 4, formatNumber(t), ` text-anchor="end" fill="${MUTED}"`);
    }
    for (const t of xTicks)
      text(xAt(t), plotTop + PLOT_H + 16, formatNumber(t), ` text-anchor="middle" fill="${MUTED}"`);
    text(LEFT + PLOT_W / 2, plotTop + PLOT_H + 32, `offered: ${xUnit}`, ` text-anchor="middle"`);
    let legendY = plotTop + 8;
    if (throughput) {
      out.push(
        `<line x1="${xAt(0)}" y1="${yAt(0).toFixed(1)}" x2="${xAt(xMax).toFixed(1)}" y2="${yAt(xMax).toFixed(1)}" stroke="${MUTED}" stroke-dasharray="4 3" data-series="offered"/>`,
      );
      text(LEFT + PLOT_W + 24, legendY + 4, "achieved = offered", ` fill="${MUTED}"`);
      legendY += 18;
    }
    metrics.forEach((metric, i) => {
      const colour = COLOURS[i % COLOURS.length]!;
      const points = panelRows.filter((r) => r.metric === metric).sort((a, b) => a.x - b.x);
      const coords = points.map((p) => `${xAt(p.x).toFixed(1)},${yAt(p.value).toFixed(1)}`);
      out.push(
        `<polyline points="${coords.join(" ")}" fill="none" stroke="${colour}" stroke-width="2"/>`,
      );
      for (const p of points)
        out.push(
          `<circle cx="${xAt(p.x).toFixed(1)}" cy="${yAt(p.value).toFixed(1)}" r="3" fill="${colour}" data-series="${escapeXml(metric)}" data-x="${p.x}" data-value="${p.value}"><title>${escapeXml(`${metric} at ${formatNumber(p.x)}: ${formatNumber(p.value)} ${p.unit}`)}</title></circle>`,
        );
      out.push(
        `<rect x="${LEFT + PLOT_W + 24}" y="${legendY - 6}" width="12" height="3" fill="${colour}"/>`,
      );
      text(LEFT + PLOT_W + 42, legendY, metric);
      legendY += 18;
    });
    top = plotTop + PLOT_H + 48;
  }
  return svgDocument(`${bench}: ${scenario}`, width, top + PAD - 8, out);
}
