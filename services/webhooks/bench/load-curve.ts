import { readdirSync, readFileSync } from "node:fs";
import { percentile } from "./bare-baseline.ts";

/** One step of the curve: a fixed publish rate held for a while, then drained. */
export type CurveStep = {
  /** Deliveries a second offered: events published over the publishing time × fan-out. */
  offered: number;
  /** Deliveries a second achieved: the step's deliveries over first publish → last POST. */
  achieved: number;
  /** Event-to-POST latency of the step's deliveries (ms). */
  p50: number;
  p99: number;
  /** Whether every delivery of the step arrived before the drain deadline. */
  complete: boolean;
  /** CPU used over the step per process, in % of one core. */
  cpu: Record<string, number>;
  /** The machine's busy share over the step, % of all cores (other work included). */
  machineBusy: number;
};

export type LoadCurveOptions = {
  /** Events a second per step, lowest first; each event makes `deliveriesPerEvent` deliveries. */
  eventRates: number[];
  deliveriesPerEvent: number;
  stepSeconds: number;
  /** Publishes one new event (not awaited before the next: open loop). */
  publish: () => { eventId: string; sent: Promise<unknown> };
  /** POSTs received from the `from`-th on, in arrival order. */
  arrivals: (from: number) => ReadonlyArray<{ eventId: string; at: number }>;
  /** CPU milliseconds each process has used so far (sampled at each step's start and end). */
  cpuMs: Record<string, () => number>;
  drainTimeoutMs: number;
};

/**
 * Open-loop load: each step publishes at its rate on a fixed schedule whatever the dispatcher does,
 * waits until the step's deliveries have all arrived, and records throughput, latency and CPU.
 * Ends after the first step past saturation (achieved under 90 % of offered, or not drained).
 */
export async function loadCurve(o: LoadCurveOptions): Promise<CurveStep[]> {
  const steps: CurveStep[] = [];
  let cursor = o.arrivals(0).length;
  for (const rate of o.eventRates) {
    const sentAt = new Map<string, number>();
    const cpuBefore = sampleCpu(o.cpuMs);
    const busyBefore = machineTicks();
    const startedAt = Date.now();
    const started = performance.now();
    const total = Math.max(1, Math.round(rate * o.stepSeconds));
    const sends: Array<Promise<unknown>> = [];
    for (let i = 0; i < total; i++) {
      const wait = started + (i * 1000) / rate - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const { eventId, sent } = o.publish();
      sentAt.set(eventId, Date.now());
      sends.push(sent);
    }
    await Promise.all(sends);
    const publishSeconds = Math.max(o.stepSeconds, (performance.now() - started) / 1000);
    const expected = total * o.deliveriesPerEvent;
    const latencies: number[] = [];
    let lastAt = startedAt;
    const deadline = Date.now() + o.drainTimeoutMs;
    for (;;) {
      const fresh = o.arrivals(cursor);
      cursor += fresh.length;
      for (const r of fresh) {
        const t = sentAt.get(r.eventId);
        if (t === undefined) continue;
        latencies.push(r.at - t);
        lastAt = Math.max(lastAt, r.at);
      }
      if (latencies.length >= expected || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = Math.max(0.001, (lastAt - startedAt) / 1000);
    const cpuAfter = sampleCpu(o.cpuMs);
    const busyAfter = machineTicks();
    latencies.sort((a, b) => a - b);
    const step: CurveStep = {
      offered: (total * o.deliveriesPerEvent) / publishSeconds,
      achieved: latencies.length / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      complete: latencies.length >= expected,
      cpu: Object.fromEntries(
        Object.keys(o.cpuMs).map((k) => [
          k,
          Math.round(((cpuAfter[k]! - cpuBefore[k]!) / (seconds * 1000)) * 100),
        ]),
      ),
      machineBusy: Math.round(
        (100 * (busyAfter.busy - busyBefore.busy)) /
          Math.max(1, busyAfter.total - busyBefore.total),
      ),
    };
    steps.push(step);
    if (!step.complete || step.achieved < 0.9 * step.offered) break;
  }
  return steps;
}

/**
 * The knee: the highest step that still kept up (achieved at least 95 % of offered) with its p99
 * within 4× the lowest step's; undefined when even the first step did not.
 */
export function kneeOf(steps: CurveStep[]): CurveStep | undefined {
  const floor = Math.max(steps[0]?.p99 ?? 0, 1);
  let knee: CurveStep | undefined;
  for (const s of steps) {
    if (!s.complete || s.achieved < 0.95 * s.offered || s.p99 > 4 * floor) break;
    knee = s;
  }
  return knee;
}

/** The curve as a markdown table, the knee marked, with each process's CPU. */
export function curveTable(steps: CurveStep[], deliveriesPerEvent: number, stepSeconds: number) {
  const knee = kneeOf(steps);
  const names = Object.keys(steps[0]?.cpu ?? {});
  return [
    `load curve: events published at a fixed rate (open loop), ${deliveriesPerEvent} deliveries each, ${stepSeconds} s a step; CPU in % of one core`,
    `| offered deliveries/s | achieved | event-to-POST p50 | p99 | ${names.join(" | ")} | machine busy |`,
    `|---:|---:|---:|---:|${names.map(() => "---:|").join("")}---:|`,
    ...steps.map(
      (s) =>
        `| ${Math.round(s.offered)}${s === knee ? " (knee)" : ""} | ${Math.round(s.achieved)}${s.complete ? "" : " (not drained)"} | ${s.p50} ms | ${s.p99} ms | ${names.map((k) => `${s.cpu[k]} %`).join(" | ")} | ${s.machineBusy} % |`,
    ),
  ].join("\n");
}

/** Rows for the results: each step's throughput and latency at its offered load, and the knee. */
export function curveRows(steps: CurveStep[], scenario: string) {
  const knee = kneeOf(steps);
  const at = (s: CurveStep) => ({ x: Math.round(s.offered), xUnit: "deliveries/s" });
  return [
    ...steps.flatMap((s) => [
      {
        scenario,
        metric: "throughput",
        value: Math.round(s.achieved),
        unit: "deliveries/s",
        ...at(s),
      },
      { scenario, metric: "event-to-POST p50", value: s.p50, unit: "ms", ...at(s) },
      { scenario, metric: "event-to-POST p99", value: s.p99, unit: "ms", ...at(s) },
    ]),
    ...(knee
      ? [
          {
            scenario: `${scenario}: knee`,
            metric: "throughput",
            value: Math.round(knee.achieved),
            unit: "deliveries/s",
          },
        ]
      : []),
  ];
}

function sampleCpu(cpuMs: Record<string, () => number>): Record<string, number> {
  return Object.fromEntries(Object.entries(cpuMs).map(([k, read]) => [k, read()]));
}

/**
 * CPU time (user + system) used so far by the processes `list` names, from /proc/<pid>/stat (ticks
 * of 10 ms). A process that exits keeps its last reading, so the total never goes back (a pool
 * closing an idle connection).
 */
export function processCpuMs(list: () => number[]): () => number {
  const last = new Map<number, number>();
  return () => {
    for (const pid of list()) {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
        last.set(pid, (Number(fields[11]) + Number(fields[12])) * 10);
      } catch {
        // Exited since it was listed: its last reading stands.
      }
    }
    let sum = 0;
    for (const ms of last.values()) sum += ms;
    return sum;
  };
}

/** The pids of processes whose command line contains every one of `parts`. */
export function pidsByCommandLine(parts: string[]): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ");
      if (parts.every((p) => cmd.includes(p))) pids.push(Number(entry));
    } catch {
      // Exited while listing.
    }
  }
  return pids;
}

function machineTicks(): { busy: number; total: number } {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1);
  const ticks = cpu.map(Number);
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  // idle and iowait
  return { busy: total - ticks[3]! - ticks[4]!, total };
}
