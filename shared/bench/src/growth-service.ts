/**
 * The growth benchmarks' service part (services/*\/bench/growth-bench.ts): a growth data set made
 * sure of, and the service as deployed (its production bundle, under its pod memory limit) on a
 * detection state: RSS through one of its own full sweeps, idle, and under list load.
 */
import { openServerConnection, seedDatabase } from "@svc/sandbox";
import { entryArgs } from "@svc/manifest";
import { NODE_FLAGS, RUNTIME_ENV } from "@svc/runtime";
import { dateIn } from "@svc/time";
import { IDLE_SETTLE_MS, settledRss, type BenchRow } from "./bench-report.ts";
import { startServiceUnderBench } from "./bench-service.ts";
import { benchMemoryLimit, chartMemoryLimitBytes } from "./chart-limits.ts";
import { growthDatabase, loadAverage, round1, type GrowthSize } from "./growth.ts";
import {
  measureDetection,
  type DetectionOptions,
  type DetectionTarget,
} from "./growth-detection.ts";
import {
  loadRows,
  loadScenarios,
  printLoad,
  type GrowthLoadResult,
  type LoadScenario,
} from "./growth-load.ts";

/** The size's legacy database, seeded when absent or of another scale; its URL under `serverUrl`. */
export async function ensureGrowthData(
  serverUrl: string,
  size: GrowthSize,
  zone: string,
  out: (line?: string) => void,
): Promise<string> {
  const connection = await openServerConnection(serverUrl);
  const database = growthDatabase(size);
  try {
    const options = { seed: 1, scale: size.scale, today: dateIn(zone, Date.now()) };
    let result = await seedDatabase(connection, database, options, "if-absent", out);
    if (result.options.scale !== size.scale)
      result = await seedDatabase(connection, database, options, "replace", out);
    out(
      `data: ${database} ${result.action} (scale ${result.options.scale}, today ${result.options.today})`,
    );
  } finally {
    await connection.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** One service as the growth bench runs it. */
export interface GrowthService {
  /** The manifest's component and chart name, e.g. "practices". */
  component: string;
  /** Relative to the repository root, e.g. services/practices/src/main.ts. */
  entry: string;
  /** The token scope its lists need. */
  scope: string;
  /** Starts each row's scenario, e.g. "10,000 vacancies". */
  subject: string;
}

export interface ServiceMemory {
  sweepPeakMb: number;
  sweepMs: number;
  idleMb: number;
  load: GrowthLoadResult[];
}

export interface ServiceRunOptions {
  root: string;
  connections: number;
  maxS: number;
  latencyS: number;
  /** Run one of its own full sweeps first (start-up and sweep memory). */
  sweep: boolean;
  out: (line?: string) => void;
}

/** The service as deployed, on the detection state `databaseUrl` holds. */
function startService(
  service: GrowthService,
  root: string,
  legacyUrl: string,
  databaseUrl: string,
  env: Record<string, string> = {},
) {
  return startServiceUnderBench({
    root,
    entry: service.entry,
    args: [...NODE_FLAGS, ...entryArgs(service.entry, { from: "bundle" })],
    env: { ...RUNTIME_ENV, LEGACY_DATABASE_URL: legacyUrl, DATABASE_URL: databaseUrl, ...env },
    ...benchMemoryLimit(service.component),
    keep: /change detection pass done/,
  });
}

/**
 * RSS through one of its own full sweeps (due at once: DETECTOR_SWEEP_MS at its minimum), then,
 * restarted with its default schedule (the sweep just done is not due again), idle and under the
 * scenarios' load.
 */
export async function measureService(
  size: GrowthSize,
  service: GrowthService,
  legacyUrl: string,
  databaseUrl: string,
  scenarios: readonly LoadScenario[],
  o: ServiceRunOptions,
): Promise<ServiceMemory> {
  let sweepPeakMb = Number.NaN;
  let sweepMs = Number.NaN;
  if (o.sweep) {
    const sweeping = await startService(service, o.root, legacyUrl, databaseUrl, {
      DETECTOR_SWEEP_MS: "1000",
    });
    try {
      const done = await sweeping.process.waitForLine(/change detection pass done/, 3_600_000);
      sweepPeakMb = sweeping.process.memory.peak();
      sweepMs = Number(/"durationMs":(\d+)/.exec(done)?.[1] ?? NaN);
    } finally {
      await sweeping.stop();
    }
  }
  const running = await startService(service, o.root, legacyUrl, databaseUrl);
  try {
    const idleMb = await settledRss(running.process.pid, { settleMs: IDLE_SETTLE_MS });
    o.out(
      `\n[${size.name}] ${service.component}: its full sweep ${(sweepMs / 1000).toFixed(1)} s, peak RSS ${sweepPeakMb.toFixed(0)} MB; idle RSS ${idleMb.toFixed(0)} MB; load ${loadAverage()}`,
    );
    const token = await running.mint({ scope: service.scope });
    const load = await loadScenarios(running, token, scenarios, o);
    o.out(`\n[${size.name}] ${service.component} lists under load (ms), load ${loadAverage()}`);
    printLoad(o.out, load);
    return { sweepPeakMb, sweepMs, idleMb, load };
  } finally {
    await running.stop();
  }
}

/**
 * What a full sweep's set of seen ids (the detector keeps every id a sweep yields) takes on the
 * heap for `n` ids of `length` characters (MB): a size whose own sweep is not run is projected
 * with it.
 */
export function idSetMb(n: number, length = 36): number {
  // Flat one-byte strings, as the driver decodes them, cut from one buffer so little else is
  // allocated while the heap is measured.
  const text = Buffer.alloc(length * n);
  for (let i = 0; i < n; i++) text.write(String(i).padStart(length, "0"), i * length, "latin1");
  const before = process.memoryUsage().heapUsed;
  const ids = new Set<string>();
  for (let i = 0; i < n; i++) ids.add(text.toString("latin1", i * length, (i + 1) * length));
  return ids.size > 0 ? (process.memoryUsage().heapUsed - before) / 2 ** 20 : 0;
}

/** A size's rows of ids a sweep sees, and the size whose own sweep was measured. */
export interface SweepProjection {
  ids: (size: GrowthSize) => number;
  idLength: number;
  measured?: { size: GrowthSize; sweepPeakMb: number };
}

/** How far a process's peak RSS moves between runs of the same work. */
export const MARGIN_SPREAD_MB = 10;

export function serviceMemoryRows(
  size: GrowthSize,
  service: GrowthService,
  m: ServiceMemory,
  projection: SweepProjection,
  out: (line?: string) => void,
): BenchRow[] {
  const limitMb = chartMemoryLimitBytes(service.component) / 2 ** 20;
  const scenario = `${service.subject}: service`;
  const loadPeak = Math.max(0, ...m.load.map((l) => l.peakMb));
  const rows: BenchRow[] = [
    { scenario, metric: "idle RSS", value: Math.round(m.idleMb), unit: "MB" },
    {
      scenario,
      metric: "peak RSS under list load",
      value: Math.round(loadPeak),
      unit: "MB",
      target: `< ${limitMb} MB (pod limit)`,
      met: loadPeak < limitMb,
    },
  ];
  const margin = (peak: number) => `${Math.round(limitMb - peak)} MB below the ${limitMb} MB limit`;
  const measured = projection.measured;
  // The target: at each size, through its sweep, the margin below the limit that the size before
  // it had, give or take the run-to-run spread of a process's RSS (docs/decisions/growth.md).
  const marginRow = (peak: number, metric: string): BenchRow[] => {
    if (!measured) return [];
    const kept = limitMb - peak;
    const before = limitMb - measured.sweepPeakMb;
    return [
      {
        scenario,
        metric,
        value: Math.round(kept),
        unit: "MB",
        baseline: Math.round(before),
        target: `≥ ${Math.round(before - MARGIN_SPREAD_MB)} MB (the margin at ${measured.size.label} − ${MARGIN_SPREAD_MB} MB)`,
        met: kept >= before - MARGIN_SPREAD_MB,
      },
    ];
  };
  if (!Number.isNaN(m.sweepPeakMb)) {
    out(`[${size.name}] through its own full sweep: ${margin(m.sweepPeakMb)}`);
    rows.push(
      {
        scenario,
        metric: "peak RSS, start-up and its full sweep",
        value: Math.round(m.sweepPeakMb),
        unit: "MB",
        target: `< ${limitMb} MB (pod limit)`,
        met: m.sweepPeakMb < limitMb,
      },
      ...marginRow(m.sweepPeakMb, "margin below the pod limit through its full sweep"),
      { scenario, metric: "its full sweep", value: round1(m.sweepMs / 1000), unit: "s" },
    );
  } else if (measured) {
    const growth =
      idSetMb(projection.ids(size), projection.idLength) -
      idSetMb(projection.ids(measured.size), projection.idLength);
    const projected = measured.sweepPeakMb + growth;
    out(
      `[${size.name}] projected through a full sweep: ${measured.size.name}'s peak + ${growth.toFixed(0)} MB of seen ids = ${projected.toFixed(0)} MB, ${margin(projected)}`,
    );
    rows.push(
      {
        scenario,
        metric: `peak RSS through a full sweep (projected from ${measured.size.label})`,
        value: Math.round(projected),
        unit: "MB",
        target: `< ${limitMb} MB (pod limit)`,
        met: projected < limitMb,
      },
      ...marginRow(projected, "margin below the pod limit through a full sweep (projected)"),
    );
  }
  return rows;
}

export interface GrowthRunOptions<T extends object> extends Omit<ServiceRunOptions, "sweep"> {
  detection: DetectionOptions;
  target: DetectionTarget<T>;
  service: GrowthService;
  /** Run the baseline and full sweeps on this size (else: idle passes on the smallest's state). */
  full: boolean;
  /** The smallest size's legacy database, when `full` is false. */
  smallUrl?: string;
  /** Skip the service (change detection only). */
  skipService: boolean;
  listP99Ms: number;
  perPage: number;
}

/**
 * One size's change detection, then the service on the state it leaves (its sweep when `full`,
 * idle RSS, its lists under load): the rows. `projection.measured` becomes this size when its own
 * sweep ran, for the larger sizes' projections.
 */
export async function measureDetectionAndService<T extends object>(
  size: GrowthSize,
  legacyUrl: string,
  scenarios: readonly LoadScenario[],
  projection: SweepProjection,
  o: GrowthRunOptions<T>,
): Promise<BenchRow[]> {
  const detection = await measureDetection(
    size,
    legacyUrl,
    o.target,
    o.detection,
    o.full ? undefined : o.smallUrl,
  );
  const rows = [...detection.rows];
  try {
    if (o.skipService) return rows;
    const memory = await measureService(
      size,
      o.service,
      legacyUrl,
      detection.database.url,
      scenarios,
      { ...o, sweep: o.full },
    );
    rows.push(...loadRows(o.service.subject, memory.load, o.listP99Ms, o.perPage));
    rows.push(...serviceMemoryRows(size, o.service, memory, projection, o.out));
    if (!Number.isNaN(memory.sweepPeakMb))
      projection.measured = { size, sweepPeakMb: memory.sweepPeakMb };
    return rows;
  } finally {
    await detection.database.drop();
  }
}
