/**
 * The growth benchmarks' load part (services/*\/bench/growth-bench.ts): each list scenario against
 * the running service, its maximum with wrk (closed loop), then its latency at half that rate with
 * the open-loop generator (coordinated omission corrected). Both are C: the load takes little of
 * the two cores.
 */
import type { BenchProcess, BenchRow } from "./bench-report.ts";
import { round1 } from "./growth.ts";
import { openLoop } from "./open-loop.ts";
import { runWrk } from "./wrk.ts";

export interface LoadScenario {
  name: string;
  path: string;
}

export interface GrowthLoadResult {
  name: string;
  maxRps: number;
  rate: number;
  p50: number;
  p99: number;
  p999: number;
  /** Responses other than 200, and failed requests, over both runs. */
  errors: number;
  peakMb: number;
  /** wrk's "too slow to measure at this size: …": no rate to measure latency at. */
  tooSlow?: string;
}

export async function loadScenarios(
  service: { origin: string; process: BenchProcess },
  token: string,
  scenarios: readonly LoadScenario[],
  o: { connections: number; maxS: number; latencyS: number },
): Promise<GrowthLoadResult[]> {
  const headers = { authorization: `Bearer ${token}`, accept: "application/json" };
  const results: GrowthLoadResult[] = [];
  for (const s of scenarios) {
    const url = `${service.origin}${s.path}`;
    // Warm-up: one request first, which waits for the list's total and page marks however long
    // they take (seconds at a million rows), so that the maximum is of the cached list as clients
    // see it after its first request; then JIT and pools.
    await (await fetch(url, { headers })).arrayBuffer();
    await runWrk({ url, connections: 4, durationS: 1, headers });
    service.process.memory.reset();
    const max = await runWrk({ url, connections: o.connections, durationS: o.maxS, headers });
    const not200 = (statuses: Record<string, number>) =>
      Object.entries(statuses).reduce((n, [code, count]) => n + (code === "200" ? 0 : count), 0);
    if (max.tooSlow) {
      results.push({
        name: s.name,
        maxRps: max.rps,
        rate: 0,
        p50: NaN,
        p99: NaN,
        p999: NaN,
        errors: max.errors + not200(max.statuses),
        peakMb: service.process.memory.peak(),
        tooSlow: max.tooSlow,
      });
      continue;
    }
    const rate = Math.max(1, Math.round(max.rps / 2));
    const latency = await openLoop({
      url,
      ratePerS: rate,
      durationS: o.latencyS,
      connections: o.connections,
      headers,
    });
    results.push({
      name: s.name,
      maxRps: max.rps,
      rate,
      p50: latency.p50,
      p99: latency.p99,
      p999: latency.p999,
      errors:
        max.errors +
        not200(max.statuses) +
        latency.errors +
        latency.unfinished +
        not200(latency.statuses),
      peakMb: service.process.memory.peak(),
    });
  }
  return results;
}

/** `subject` starts each row's scenario, e.g. "10,000 vacancies"; `perPage` ends it. */
export function loadRows(
  subject: string,
  results: readonly GrowthLoadResult[],
  targetP99Ms: number,
  perPage: number,
): BenchRow[] {
  return results.flatMap((r) => {
    const scenario = `${subject}: ${r.name}, per_page=${perPage}`;
    if (r.tooSlow)
      return [
        {
          scenario,
          metric: r.tooSlow,
          value: Math.round(r.maxRps * 10) / 10,
          unit: "req/s",
          target: `p99 < ${targetP99Ms} ms at 50 % of max`,
          met: false,
        },
      ];
    return [
      { scenario, metric: "max throughput (wrk)", value: Math.round(r.maxRps), unit: "req/s" },
      {
        scenario,
        metric: "p99 at 50 % of max",
        value: round1(r.p99),
        unit: "ms",
        target: `< ${targetP99Ms} ms`,
        met: r.p99 < targetP99Ms && r.errors === 0,
      },
      ...(r.errors > 0
        ? [
            {
              scenario,
              metric: "errors",
              value: r.errors,
              unit: "responses",
              target: "0",
              met: false,
            },
          ]
        : []),
    ];
  });
}

export function printLoad(out: (line: string) => void, results: readonly GrowthLoadResult[]): void {
  out(
    `${"scenario".padEnd(32)} ${"max req/s".padStart(9)} ${"rate".padStart(6)} ${"p50".padStart(7)} ${"p99".padStart(7)} ${"p99.9".padStart(7)} ${"errors".padStart(6)} ${"peak MB".padStart(7)}`,
  );
  for (const r of results)
    if (r.tooSlow) out(`${r.name.padEnd(32)} ${r.tooSlow}`);
    else
      out(
        `${r.name.padEnd(32)} ${r.maxRps.toFixed(0).padStart(9)} ${String(r.rate).padStart(6)} ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)} ${r.p999.toFixed(1).padStart(7)} ${String(r.errors).padStart(6)} ${r.peakMb.toFixed(0).padStart(7)}`,
      );
}
