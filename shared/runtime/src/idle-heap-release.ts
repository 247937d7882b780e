import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { loadMallocTrim, type MallocTrim } from "./malloc-trim.ts";

export type LastResortGc = (options: {
  type: "major";
  execution: "sync";
  flavor: "last-resort";
}) => void;

export type IdleHeapReleaseOptions = {
  /** How often the process looks at itself. */
  everyMs?: number;
  /** Share of one core the main thread used over a period at or below which the period is idle. */
  idleCpu?: number;
  /** Idle periods in a row before a release. */
  idlePeriods?: number;
  /** Resident growth above the lowest resident set since the last release that makes one worth it. */
  minGrowthBytes?: number;
  /**
   * Run after the collection: gives back the free pages inside glibc's heap (default: the addon's
   * malloc_trim where there is one; null: none).
   */
  trim?: MallocTrim | null;
};

export type IdleHeapRelease = { stop(): void; releases(): number };

/** What one period looked like: the main thread's share of a core, and the resident set. */
export type PeriodSample = { cpuShare: number; rss: number };

/**
 * The release decision, without clocks: `period` says after each period whether to release now;
 * `released` takes the resident set measured right after a release.
 */
export function releaseJudge(options: Required<Omit<IdleHeapReleaseOptions, "everyMs" | "trim">>): {
  period(sample: PeriodSample): boolean;
  released(rss: number): void;
} {
  let idleInRow = 0;
  let floor: number | undefined;
  return {
    period({ cpuShare, rss }) {
      idleInRow = cpuShare <= options.idleCpu ? idleInRow + 1 : 0;
      if (floor !== undefined) floor = Math.min(floor, rss);
      const grown = floor === undefined || rss - floor >= options.minGrowthBytes;
      return idleInRow >= options.idlePeriods && grown;
    },
    released(rss) {
      floor = rss;
      idleInRow = 0;
    },
  };
}

/** CPU time (user + system) the calling thread has used, in milliseconds. */
function threadCpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1_000;
}

/**
 * Gives the heap pages V8 freed back to the operating system once the process has gone idle: Node
 * 24's V8 keeps them in a pool, and its memory reducer stays in its "high allocation" state in a
 * process that went quiet, so every burst would stay resident. A last-resort collection releases
 * the pool, then malloc_trim gives back what the burst left free inside glibc's heap (free() only
 * returns its top). Why and how idleness is judged: docs/decisions/idle-heap-release.md.
 *
 * Idle is the main thread's own CPU time, not the event loop's utilisation: a timer that fires
 * while the machine is loaded waits for a core, and that wait counts as busy loop time. It runs
 * after `idlePeriods` periods in a row in which the main thread used at most `idleCpu` of a core,
 * when the resident set is `minGrowthBytes` above its lowest since the last release (or there was
 * none yet): at most one full collection per period, only while nothing is being served. The
 * timer is unref'd.
 */
export function startIdleHeapRelease(options: IdleHeapReleaseOptions = {}): IdleHeapRelease {
  const everyMs = options.everyMs ?? 5_000;
  const judge = releaseJudge({
    idleCpu: options.idleCpu ?? 0.05,
    idlePeriods: options.idlePeriods ?? 2,
    minGrowthBytes: options.minGrowthBytes ?? 4 * 1024 * 1024,
  });
  const gc = lastResortGc();
  const trim = options.trim === undefined ? loadMallocTrim() : (options.trim ?? undefined);
  let released = 0;
  let lastCpu = threadCpuMs();
  let lastAt = performance.now();
  const timer = setInterval(() => {
    const cpu = threadCpuMs();
    const at = performance.now();
    const cpuShare = (cpu - lastCpu) / Math.max(1, at - lastAt);
    lastCpu = cpu;
    lastAt = at;
    if (!judge.period({ cpuShare, rss: process.memoryUsage.rss() })) return;
    gc({ type: "major", execution: "sync", flavor: "last-resort" });
    trim?.();
    released++;
    judge.released(process.memoryUsage.rss());
    // The collection itself is not load.
    lastCpu = threadCpuMs();
    lastAt = performance.now();
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer), releases: () => released };
}

/** V8's gc() without exposing it on this realm's global object (no `--expose-gc` for all code). */
export function lastResortGc(): LastResortGc {
  setFlagsFromString("--expose-gc");
  try {
    return runInNewContext("gc") as LastResortGc;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
}
