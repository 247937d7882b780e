import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";

/** A drizzle database or transaction on PostgreSQL (the same type as @svc/events' PgExecutor). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PgExecutor = PgDatabase<PgQueryResultHKT, any, any>;

/** Throws inside a batch transaction when this process no longer leads (see LeaderElector). */
export type Fence = (db: PgExecutor) => Promise<void>;

/**
 * Leader election for singleton work (one active change detector per service).
 *
 * `run` campaigns until `stop` aborts. Each time this process wins, `task` runs with a signal
 * that aborts the moment leadership is lost or `stop` aborts, and a fence; when the task ends,
 * leadership is handed back (so a peer can take over at once) and the campaign goes on.
 *
 * The fence is called inside every batch transaction before it commits and throws if this
 * process is no longer leader. A database-backed elector checks the lock in that transaction; a
 * lease-based one (Kubernetes Lease: lease duration, renew deadline, holder identity) checks that
 * its last successful renewal is younger than the lease duration minus a safety margin, and
 * aborts the signal when a renewal misses the deadline. Hand-over is then safe without exact
 * fencing: every batch commits its state and its events together, so a batch either happened
 * or will be re-detected by the next leader (at-least-once, never lost).
 */
export interface LeaderElector {
  run(task: (signal: AbortSignal, fence: Fence) => Promise<void>, stop: AbortSignal): Promise<void>;
  isLeader(): boolean;
}

export class LeadershipLostError extends Error {
  constructor(message = "leadership lost", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "LeadershipLostError";
  }
}

/** Always the leader: one replica by construction, or tests. */
export class SoloElector implements LeaderElector {
  #leading = false;

  isLeader(): boolean {
    return this.#leading;
  }

  async run(
    task: (signal: AbortSignal, fence: Fence) => Promise<void>,
    stop: AbortSignal,
  ): Promise<void> {
    this.#leading = true;
    try {
      await task(stop, async () => {
        if (stop.aborted) throw new LeadershipLostError("stopping");
      });
    } finally {
      this.#leading = false;
    }
  }
}
