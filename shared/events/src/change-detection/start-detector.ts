import { LeaderGroup, type Fence, type LeaderElector } from "@svc/leader";
import { backoffMs, sleep } from "@svc/time";
import { serialQueue } from "../background.ts";
import type { PassResult } from "./detection-pass.ts";
import { createChangeDetector } from "./engine.ts";
import type { ChangeDetector, ChangeDetectorOptions } from "./engine.ts";

export type DetectorSchedule = ChangeDetectorOptions & {
  /** Pause between passes while leader (quick passes, see overlapEveryMs); default 250 ms. */
  incrementalEveryMs?: number;
  /**
   * The full incremental pass (overlap window, calendar rechecks) replaces a quick pass when the
   * last one in this term is this old, and is the first pass of a term; default 5 s. At or below
   * incrementalEveryMs every pass is a full one.
   */
  overlapEveryMs?: number;
  /**
   * A full sweep replaces the incremental pass when the last one (any leader's) is this old;
   * default 15 min.
   */
  sweepEveryMs?: number;
  /** Ceiling of the retry backoff while a source or PostgreSQL is unavailable; default 30 s. */
  maxBackoffMs?: number;
};

export type DetectorOptions = DetectorSchedule & { elector: LeaderElector };

export type DetectorStats = { passes: number; failures: number; last: PassResult | null };

/** A detector in a leader group: it runs while the group leads. */
export type LeadingDetector = {
  /**
   * Runs an incremental pass now, after any pass in flight; null when this replica is not leader.
   */
  runIncremental(): Promise<PassResult | null>;
  runQuick(): Promise<PassResult | null>;
  runSweep(): Promise<PassResult | null>;
  isLeader(): boolean;
  stats(): DetectorStats;
};

export type RunningDetector = LeadingDetector & {
  /** Stops after the batch in flight and hands leadership back. */
  stop(): Promise<void>;
};

/**
 * Adds change detection for one source to the process's leader group: while the group leads, a
 * pass every `incrementalEveryMs`: a quick one, the full incremental pass every `overlapEveryMs`,
 * or a full sweep instead of that when one is due (docs/decisions/change-detection-latency.md). Passes never
 * overlap. A failed pass is retried with backoff, leadership kept. The sweep schedule is kept in
 * the cursor row, so a new leader does not sweep again at once. The caller starts and stops the
 * group.
 */
export function addDetector(leader: LeaderGroup, options: DetectorSchedule): LeadingDetector {
  const runner = new DetectorRunner(options);
  leader.add({
    name: `change detection (${options.source.name})`,
    run: (signal, fence) => runner.lead(signal, fence),
  });
  return {
    runIncremental: () => runner.pass("runIncremental"),
    runQuick: () => runner.pass("runQuick"),
    runSweep: () => runner.pass("runSweep"),
    isLeader: () => leader.isLeader(),
    stats: () => ({ ...runner.stats }),
  };
}

/** addDetector with an election of its own (a leader group of one), started at once. */
export function startDetector(options: DetectorOptions): RunningDetector {
  const leader = new LeaderGroup({ elector: options.elector, logger: options.logger });
  const detector = addDetector(leader, options);
  leader.start();
  return { ...detector, stop: () => leader.stop() };
}

class DetectorRunner {
  readonly stats: DetectorStats = { passes: 0, failures: 0, last: null };
  readonly #engine: ChangeDetector;
  readonly #o: DetectorSchedule & {
    incrementalEveryMs: number;
    overlapEveryMs: number;
    sweepEveryMs: number;
    maxBackoffMs: number;
  };
  readonly #queue = serialQueue();
  #term: { signal: AbortSignal; fence: Fence } | null = null;

  constructor(options: DetectorSchedule) {
    this.#engine = createChangeDetector(options);
    this.#o = {
      incrementalEveryMs: 250,
      overlapEveryMs: 5_000,
      sweepEveryMs: 15 * 60_000,
      maxBackoffMs: 30_000,
      ...options,
    };
  }

  /** One pass, after any pass in flight, as the current leader; null when not leading. */
  pass(kind: "runQuick" | "runIncremental" | "runSweep"): Promise<PassResult | null> {
    return this.#queue(async () => {
      const term = this.#term;
      if (!term || term.signal.aborted) return null;
      const result = await this.#engine[kind](term);
      this.stats.passes += 1;
      this.stats.last = result;
      return result;
    });
  }

  async lead(signal: AbortSignal, fence: Fence): Promise<void> {
    this.#term = { signal, fence };
    try {
      await this.#schedule(signal);
    } finally {
      this.#term = null;
    }
  }

  async #schedule(signal: AbortSignal): Promise<void> {
    const { incrementalEveryMs, overlapEveryMs, sweepEveryMs, maxBackoffMs, logger, source } =
      this.#o;
    let overlapAt = -Infinity;
    for (let failures = 0; !signal.aborted;) {
      try {
        if (performance.now() - overlapAt >= overlapEveryMs) {
          const sweep = await this.#engine.sweepDue(sweepEveryMs);
          await this.pass(sweep ? "runSweep" : "runIncremental");
          overlapAt = performance.now();
        } else await this.pass("runQuick");
        failures = 0;
        await sleep(incrementalEveryMs, signal);
      } catch (err) {
        if (signal.aborted) return;
        failures += 1;
        this.stats.failures += 1;
        const delayMs = backoffMs(failures, incrementalEveryMs, maxBackoffMs);
        logger.warn(
          { err, source: source.name, failures, delayMs },
          "change detection pass failed; retrying",
        );
        await sleep(delayMs, signal);
      }
    }
  }
}
