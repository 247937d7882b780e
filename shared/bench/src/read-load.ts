/**
 * How the read benchmarks load a scenario: wrk finds the maximum throughput of the service and of
 * its bare baseline (closed loop); then the open-loop generator sends at 50 % and 80 % of the
 * service's own maximum, to the service and to the baseline at the same rates, for latency
 * percentiles measured from each request's intended send time. Neither generator runs in Node.
 * Why: docs/decisions/open-loop-load.md.
 */
import { processCpuMs, type BenchProcess, type BenchRow } from "./bench-report.ts";
import { openLoop, type OpenLoopResult } from "./open-loop.ts";
import { runWrk, type WrkResult } from "./wrk.ts";

export interface ReadTarget {
  origin: string;
  headers: Record<string, string>;
  /** Request paths (with query), sent in turn. */
  paths: readonly string[];
  process: BenchProcess;
}

export interface MaxThroughput extends WrkResult {
  /** Server process CPU per response (µs). */
  cpuUs: number;
  /** Responses with a status of 400 or above, and socket errors. */
  failures: number;
}

export interface LatencyAtLoad {
  /** Share of the service's maximum throughput, e.g. 0.5. */
  share: number;
  /** Requests per second sent to both. */
  rate: number;
  service: OpenLoopResult;
  baseline: OpenLoopResult;
}

export interface ReadScenarioResult {
  service: MaxThroughput;
  baseline: MaxThroughput;
  /** Empty when the service was too slow to measure (`tooSlow`): no rate to load it at. */
  levels: LatencyAtLoad[];
  /** wrk's "too slow to measure at this size: N responses in S s" for the service. */
  tooSlow?: string;
  /** Highest RSS of each server process over the scenario (MB). */
  peakMb: { service: number; baseline: number };
}

export interface ReadLoadOptions {
  /** wrk connections, and the open loop's (one request in flight on each). */
  connections: number;
  /** Seconds of wrk per target. */
  maxSeconds: number;
  /** Seconds of open loop per target and load level. */
  openSeconds: number;
  /** Shares of the service's maximum to measure latency at (default 50 % and 80 %). */
  shares?: readonly number[];
  /** Fewer responses than this in `maxSeconds` and wrk runs again longer (runWrk's default). */
  minResponses?: number;
  /** The longest wrk window a slow scenario gets (s, runWrk's default). */
  slowMaxSeconds?: number;
}

export const LOAD_SHARES = [0.5, 0.8] as const;

const url = (target: ReadTarget) => `${target.origin}${target.paths[0] ?? "/"}`;

/** Responses that were not 200, socket errors, and requests left unanswered. */
export function failuresOf(result: {
  statuses: Record<string, number>;
  errors: number;
  unfinished?: number;
}): number {
  const other = Object.entries(result.statuses)
    .filter(([code]) => code !== "200")
    .reduce((n, [, count]) => n + count, 0);
  return other + result.errors + (result.unfinished ?? 0);
}

/** wrk against `target` for `seconds`, closed loop: its maximum throughput. */
export async function maxThroughput(
  target: ReadTarget,
  options: { connections: number; seconds: number; minResponses?: number; maxSeconds?: number },
): Promise<MaxThroughput> {
  const cpuBefore = processCpuMs(target.process.pid);
  const result = await runWrk({
    url: url(target),
    paths: target.paths,
    headers: target.headers,
    connections: options.connections,
    durationS: options.seconds,
    ...(options.minResponses === undefined ? {} : { minResponses: options.minResponses }),
    ...(options.maxSeconds === undefined ? {} : { maxDurationS: options.maxSeconds }),
  });
  const cpuMs = processCpuMs(target.process.pid) - cpuBefore;
  return {
    ...result,
    cpuUs: (cpuMs * 1000) / Math.max(1, result.requests),
    failures: result.badStatuses + result.errors,
  };
}

/** `target` at a fixed `rate` for `seconds`, open loop. */
export function latencyAt(
  target: ReadTarget,
  options: { connections: number; rate: number; seconds: number },
): Promise<OpenLoopResult> {
  return openLoop({
    url: url(target),
    paths: target.paths,
    headers: target.headers,
    ratePerS: options.rate,
    durationS: options.seconds,
    connections: options.connections,
  });
}

/**
 * One scenario: the maximum of the baseline and of the service (wrk), then each load level's
 * latency, the service and then the baseline at the same rate (open loop).
 */
export async function measureReadScenario(
  service: ReadTarget,
  baseline: ReadTarget,
  options: ReadLoadOptions,
): Promise<ReadScenarioResult> {
  service.process.memory.reset();
  baseline.process.memory.reset();
  const max = {
    connections: options.connections,
    seconds: options.maxSeconds,
    ...(options.minResponses === undefined ? {} : { minResponses: options.minResponses }),
    ...(options.slowMaxSeconds === undefined ? {} : { maxSeconds: options.slowMaxSeconds }),
  };
  const baselineMax = await maxThroughput(baseline, max);
  const serviceMax = await maxThroughput(service, max);
  const levels: LatencyAtLoad[] = [];
  for (const share of serviceMax.tooSlow ? [] : (options.shares ?? LOAD_SHARES)) {
    const rate = Math.max(1, Math.round(serviceMax.rps * share));
    const at = { connections: options.connections, rate, seconds: options.openSeconds };
    levels.push({
      share,
      rate,
      service: await latencyAt(service, at),
      baseline: await latencyAt(baseline, at),
    });
  }
  return {
    service: serviceMax,
    baseline: baselineMax,
    levels,
    ...(serviceMax.tooSlow ? { tooSlow: serviceMax.tooSlow } : {}),
    peakMb: { service: service.process.memory.peak(), baseline: baseline.process.memory.peak() },
  };
}

export interface ReadTargets {
  /** The service's throughput at least this share of the baseline's (lists: 0.6). */
  throughputShare?: number;
  /** p99 below this at the first load level (50 %), ms. */
  p99Ms?: number;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const percent = (share: number) => `${Math.round(share * 100)}% of max`;

/** The report rows of one scenario, each beside its baseline, with its target where it has one. */
export function readScenarioRows(
  scenario: string,
  result: ReadScenarioResult,
  targets: ReadTargets,
): BenchRow[] {
  const { service: s, baseline: b } = result;
  const rows: BenchRow[] = [
    {
      scenario,
      metric: "throughput (max, wrk)",
      value: Math.round(s.rps),
      unit: "req/s",
      baseline: Math.round(b.rps),
      ...(targets.throughputShare === undefined
        ? {}
        : {
            target: `≥ ${Math.round(targets.throughputShare * 100)}% of baseline`,
            met: s.rps >= targets.throughputShare * b.rps,
          }),
    },
  ];
  if (result.tooSlow)
    rows.push({
      scenario,
      metric: result.tooSlow,
      value: s.requests,
      unit: "responses",
      ...(targets.p99Ms === undefined
        ? {}
        : { target: `p99 < ${targets.p99Ms} ms at 50% of max`, met: false }),
    });
  result.levels.forEach((level, i) => {
    const at = percent(level.share);
    rows.push({ scenario, metric: `open-loop rate at ${at}`, value: level.rate, unit: "req/s" });
    for (const [name, key] of [
      ["p50", "p50"],
      ["p99", "p99"],
      ["p99.9", "p999"],
    ] as const) {
      const target = i === 0 && name === "p99" ? targets.p99Ms : undefined;
      rows.push({
        scenario,
        metric: `${at}: ${name}`,
        value: round1(level.service[key]),
        unit: "ms",
        baseline: round1(level.baseline[key]),
        ...(target === undefined
          ? {}
          : { target: `< ${target} ms`, met: level.service[key] < target }),
      });
    }
  });
  rows.push(
    {
      scenario,
      metric: "server CPU per request",
      value: Math.round(s.cpuUs),
      unit: "µs",
      baseline: Math.round(b.cpuUs),
    },
    {
      scenario,
      metric: "peak RSS",
      value: Math.round(result.peakMb.service),
      unit: "MB",
      baseline: Math.round(result.peakMb.baseline),
    },
  );
  const failed = (side: "service" | "baseline") =>
    result[side].failures + result.levels.reduce((n, level) => n + failuresOf(level[side]), 0);
  if (failed("service") + failed("baseline") > 0)
    rows.push({
      scenario,
      metric: "errors",
      value: failed("service"),
      unit: "responses",
      baseline: failed("baseline"),
      target: "0",
      met: failed("service") === 0,
    });
  return rows;
}

/** A console line per load level: rate, p50/p99/p99.9 of both, late sends. */
export function readScenarioLines(name: string, result: ReadScenarioResult): string[] {
  const f = (r: OpenLoopResult) =>
    `${r.p50.toFixed(1)}/${r.p99.toFixed(1)}/${r.p999.toFixed(1)}`.padStart(17);
  const lines = [
    `${name.padEnd(28)} max ${result.service.rps.toFixed(0).padStart(6)} req/s, baseline ${result.baseline.rps.toFixed(0).padStart(6)} (${((result.service.rps / result.baseline.rps) * 100).toFixed(0)}%); CPU µs/req ${result.service.cpuUs.toFixed(0)}/${result.baseline.cpuUs.toFixed(0)}; failures ${result.service.failures}/${result.baseline.failures}${result.tooSlow ? `; ${result.tooSlow}` : ""}`,
  ];
  for (const level of result.levels)
    lines.push(
      `${"".padEnd(28)} ${percent(level.share).padStart(11)} = ${String(level.rate).padStart(5)} req/s  svc p50/p99/p99.9 ${f(level.service)} ms  base ${f(level.baseline)} ms  late sends ${level.service.late}/${level.baseline.late}`,
    );
  return lines;
}
