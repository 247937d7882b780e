/**
 * How fast this machine ran while a benchmark ran. The benchmarks run on a 2-core virtual machine
 * whose speed swings between runs with no change in the load average
 * (docs/decisions/bench-harness.md), so a report carries two readings beside its figures:
 *
 *   - a fixed single-threaded workload (JSON.stringify of one synthetic list page, the costliest
 *     step of a list request), best of five, timed at the start and at the end of a run: when it
 *     is slower, so is everything else measured then, the baselines included;
 *   - the share of CPU time the hypervisor gave to other guests (`steal` in /proc/stat).
 */
import { readFileSync } from "node:fs";

const PROBE_PAGE = Array.from({ length: 100 }, (_, i) => ({
  uuid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  title: `Tandarts gezocht ${i}`,
  location: { province: { code: "OVL", label: "Oost-Vlaanderen" }, postal_code: null },
  content: {
    intro: "<p>Wij zoeken een <b>tandarts</b> – “fulltime” – in Gent.</p>\n".repeat(25),
    offer: "<ul><li>Vast contract</li></ul>".repeat(10),
  },
  visible: i % 2 === 0,
}));

/** Microseconds the fixed workload took, best of five rounds of ten. */
export function cpuProbeMicros(): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5; round++) {
    const started = performance.now();
    for (let i = 0; i < 10; i++) JSON.stringify(PROBE_PAGE);
    best = Math.min(best, (performance.now() - started) / 10);
  }
  return Math.round(best * 1000);
}

/**
 * The machine-wide CPU counters of /proc/stat's first line (clock ticks), or null where there is
 * none.
 */
export interface CpuTicks {
  total: number;
  steal: number;
}

/**
 * Parses the `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal [guest
 * guest_nice].
 */
export function parseCpuTicks(procStat: string): CpuTicks | null {
  const line = procStat.split("\n").find((l) => l.startsWith("cpu "));
  const fields = line?.trim().split(/\s+/).slice(1, 9).map(Number);
  if (!fields || fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return null;
  return { total: fields.reduce((sum, n) => sum + n, 0), steal: fields[7] as number };
}

export function readCpuTicks(): CpuTicks | null {
  try {
    return parseCpuTicks(readFileSync("/proc/stat", "utf8"));
  } catch {
    return null;
  }
}

/**
 * Percent of CPU time stolen between two readings; null when either is missing or no time passed.
 */
export function stealPercent(from: CpuTicks | null, to: CpuTicks | null): number | null {
  if (!from || !to || to.total <= from.total) return null;
  return (100 * (to.steal - from.steal)) / (to.total - from.total);
}
