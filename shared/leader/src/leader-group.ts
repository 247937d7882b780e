import { LeadershipLostError } from "./leader.ts";
import type { Fence, LeaderElector } from "./leader.ts";
import type { Logger } from "@svc/logging";

/** One piece of leader-only work (a controller-runtime Runnable that needs leader election). */
export type LeaderTask = {
  /** Names the task in logs. */
  name: string;
  /**
   * Runs while this replica leads, until `signal` aborts; resolves once its work has stopped.
   * `fence` throws inside a transaction when this replica no longer leads (see LeaderElector).
   */
  run(signal: AbortSignal, fence: Fence): Promise<void>;
};

export type LeaderGroupOptions = { elector: LeaderElector; logger: Logger };

/**
 * The leader-only tasks of one process under its one election, the way controller-runtime's
 * manager runs its leader-election runnables. Tasks are added before start(). While this replica
 * leads, every task runs with the same signal and fence; when leadership is lost or stop() is
 * called, that signal aborts and the group waits for every task to return before leadership is
 * handed back. After a loss the group campaigns again, and every task runs anew when it wins.
 *
 * A task is expected to run until its signal aborts and to retry its own failures (change detection
 * and retention log a failed pass and retry, keeping leadership). A task that throws or returns
 * while leading ends the term for every task: the group logs it, aborts the other tasks' signal and
 * waits for them; then the elector hands leadership back (logging the error as "leader task failed;
 * handing over"), so a peer may take over, and this replica campaigns again after the elector's
 * retry pause. The process keeps running. An error a task throws after its signal aborted is
 * ignored, as electors do.
 *
 * A group without tasks does not campaign.
 */
export class LeaderGroup {
  readonly #elector: LeaderElector;
  readonly #logger: Logger;
  readonly #tasks: LeaderTask[] = [];
  readonly #stop = new AbortController();
  #running: Promise<void> | undefined;

  constructor(options: LeaderGroupOptions) {
    this.#elector = options.elector;
    this.#logger = options.logger;
  }

  add(task: LeaderTask): void {
    if (this.#running) throw new Error(`leader task "${task.name}" added after the group started`);
    this.#tasks.push(task);
  }

  /** Starts campaigning (in the background); tasks run whenever this replica leads. */
  start(): void {
    if (this.#running) throw new Error("the leader group has already started");
    if (this.#tasks.length === 0) {
      this.#running = Promise.resolve();
      return;
    }
    this.#running = this.#elector
      .run((signal, fence) => this.#lead(signal, fence), this.#stop.signal)
      .catch((err: unknown) => {
        if (!this.#stop.signal.aborted)
          this.#logger.error({ err }, "leader group stopped unexpectedly");
      });
  }

  isLeader(): boolean {
    return this.#elector.isLeader();
  }

  /** Aborts every task, waits for them, hands leadership back and stops campaigning. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#running;
  }

  /** One term: every task, until leadership ends or a task does. */
  async #lead(signal: AbortSignal, fence: Fence): Promise<void> {
    const term = new AbortController();
    const end = (reason: unknown) => {
      if (!term.signal.aborted) term.abort(reason);
    };
    const onLost = () => end(signal.reason);
    signal.addEventListener("abort", onLost, { once: true });
    if (signal.aborted) onLost();
    const failures: unknown[] = [];
    const runs = this.#tasks.map(async (task) => {
      try {
        await task.run(term.signal, fence);
        if (term.signal.aborted) return;
        this.#logger.warn(
          { task: task.name },
          "leader task ended while leading; stopping the other tasks and handing over",
        );
        end(new LeadershipLostError(`leader task ${task.name} ended`));
      } catch (err) {
        if (term.signal.aborted) return;
        failures.push(err);
        this.#logger.warn(
          { task: task.name },
          "leader task failed; stopping the other tasks and handing over",
        );
        end(new LeadershipLostError(`leader task ${task.name} failed`, { cause: err }));
      }
    });
    try {
      await Promise.all(runs);
    } finally {
      signal.removeEventListener("abort", onLost);
    }
    if (failures.length > 0) throw failures[0];
  }
}
