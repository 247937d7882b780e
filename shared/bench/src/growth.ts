/**
 * The growth benchmarks' sizes and timing helpers (services/*\/bench/growth-bench.ts): one data set
 * per size in its own legacy database, seeded once and kept, and how a repeated step is summed up.
 * Why these sizes and targets: docs/decisions/growth.md.
 */
import { loadavg } from "node:os";

export interface GrowthSize {
  /** e.g. "1m": names the database legacy_growth_1m and the rows. */
  name: string;
  /** The sandbox loader's scale (2,000 vacancies, 300 + 120 practices per unit). */
  scale: number;
  /** The vacancies it holds, for the rows ("1,000,000 vacancies"). */
  label: string;
}

export const GROWTH_SIZES: readonly GrowthSize[] = [
  { name: "10k", scale: 5, label: "10,000" },
  { name: "100k", scale: 50, label: "100,000" },
  { name: "1m", scale: 500, label: "1,000,000" },
];

/** The sizes a `--sizes 10k,1m` argument names, in GROWTH_SIZES order; all by default. */
export function growthSizes(arg: string | undefined): GrowthSize[] {
  if (!arg) return [...GROWTH_SIZES];
  const names = arg.split(",").map((s) => s.trim().toLowerCase());
  const unknown = names.filter((n) => !GROWTH_SIZES.some((s) => s.name === n));
  if (unknown.length > 0)
    throw new Error(
      `unknown size ${unknown.join(", ")}; one of ${GROWTH_SIZES.map((s) => s.name).join(", ")}`,
    );
  return GROWTH_SIZES.filter((s) => names.includes(s.name));
}

export const growthDatabase = (size: GrowthSize): string => `legacy_growth_${size.name}`;

export interface Timing {
  runs: number;
  median: number;
  /** The slowest but one percent of the runs (the slowest of fewer than 100). */
  p99: number;
  min: number;
}

/** Times `step` `runs` times one after the other (ms), after `warmup` untimed runs. */
export async function timeRuns(
  step: () => Promise<unknown>,
  runs: number,
  warmup = 1,
): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await step();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await step();
    ms.push(performance.now() - started);
  }
  return summarise(ms);
}

/** A step that failed (e.g. past a query timeout): its time to failure, as one run of none. */
export async function timeOrFail(
  step: () => Promise<unknown>,
  runs: number,
  warmup = 0,
): Promise<Timing> {
  const started = performance.now();
  try {
    return await timeRuns(step, runs, warmup);
  } catch {
    const ms = performance.now() - started;
    return { runs: 0, median: ms, p99: ms, min: ms };
  }
}

export const failed = (t: Timing): boolean => t.runs === 0;

export function summarise(ms: number[]): Timing {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return {
    runs: sorted.length,
    median: at(0.5) ?? Number.NaN,
    p99: at(0.99) ?? Number.NaN,
    min: sorted[0] ?? Number.NaN,
  };
}

/** "1.23 0.98 0.70": the 1, 5 and 15 minute load averages, printed beside every figure. */
export const loadAverage = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

export const round1 = (x: number): number => Math.round(x * 10) / 10;
