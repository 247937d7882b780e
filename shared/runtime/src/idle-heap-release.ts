import { performance, type EventLoopUtilization } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export type LastResortGc = (options: {
  type: "major";
  execution: "sync";
  flavor: "last-resort";
}) => void;

export type IdleHeapReleaseOptions = {
  /** How often the process looks at itself. */
  everyMs?: number;
  /** Event-loop utilisation over the last period at or below which the process counts as idle. */
  idleUtilization?: number;
  /** Resident growth since the last release that makes one worth it. */
  minGrowthBytes?: number;
};

export type IdleHeapRelease = { stop(): void; releases(): number };

/**
 * Gives the heap pages V8 freed back to the operating system once the process has gone idle: Node
 * 24's V8 keeps them in a pool, and its memory reducer stays in its "high allocation" state in a
 * process that went quiet, so every burst would stay resident. A last-resort collection releases
 * the pool. Why: docs/decisions/process-runtime-settings.md.
 *
 * It runs when the event loop was at most `idleUtilization` busy over the last period and the
 * resident set grew by `minGrowthBytes` since the last release (or there was none yet): at most
 * one full collection per period, only while nothing is being served. The timer is unref'd.
 */
export function startIdleHeapRelease(options: IdleHeapReleaseOptions = {}): IdleHeapRelease {
  const everyMs = options.everyMs ?? 5_000;
  const idleUtilization = options.idleUtilization ?? 0.02;
  const minGrowthBytes = options.minGrowthBytes ?? 8 * 1024 * 1024;
  const gc = lastResortGc();
  let released = 0;
  let floor: number | undefined;
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    const rss = process.memoryUsage.rss();
    if (busy > idleUtilization || (floor !== undefined && rss - floor < minGrowthBytes)) return;
    gc({ type: "major", execution: "sync", flavor: "last-resort" });
    released++;
    floor = process.memoryUsage.rss();
    last = performance.eventLoopUtilization(); // the collection itself is not load
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
