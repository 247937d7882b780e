import { randomBytes } from "node:crypto";
import { drizzle } from "drizzle-orm/node-postgres";
import type pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LeaderGroup, LeadershipLostError, PgAdvisoryLockElector } from "../src/index.ts";
import type { Fence, LeaderTask } from "../src/index.ts";
import {
  killLockSession,
  lockHolders,
  recordingLogger,
  sleep,
  twoProcesses,
  waitFor,
} from "./support/helpers.ts";

// The leader group over the real PgAdvisoryLockElector: two "processes" (two pools on one
// database) each run a group with the same lock name.

let world: Awaited<ReturnType<typeof twoProcesses>>;
let pools: [pg.Pool, pg.Pool];
beforeAll(async () => {
  world = await twoProcesses();
  pools = world.pools;
});
afterAll(async () => {
  await world.close();
});

const groups: LeaderGroup[] = [];
afterEach(async () => {
  await Promise.all(groups.splice(0).map((g) => g.stop()));
});

type Run = { startedAt: number; fence: Fence; reason?: unknown; endedAt?: number };
type Probe = LeaderTask & { runs: Run[]; running(): boolean };

/**
 * A task that runs until its signal aborts, recording each run; `cleanupMs` is how long it takes
 * to stop, `end(run)` makes a run end by itself after 150 ms (throwing what it returns, if any).
 */
function probe(
  name: string,
  options: { cleanupMs?: number; end?: (run: number) => "return" | Error | undefined } = {},
): Probe {
  const runs: Run[] = [];
  return {
    name,
    runs,
    running: () => runs.some((r) => r.endedAt === undefined),
    async run(signal, fence) {
      const r: Run = { startedAt: Date.now(), fence };
      runs.push(r);
      const ending = options.end?.(runs.length);
      await new Promise<void>((resolve) => {
        signal.addEventListener("abort", () => resolve(), { once: true });
        if (ending !== undefined) setTimeout(resolve, 150);
      });
      r.reason = signal.reason;
      if (options.cleanupMs && signal.aborted) await sleep(options.cleanupMs);
      r.endedAt = Date.now();
      if (!signal.aborted && ending instanceof Error) throw ending;
    },
  };
}

function group(
  pool: pg.Pool,
  name: string,
  tasks: LeaderTask[],
  logger = recordingLogger(),
): LeaderGroup {
  const elector = new PgAdvisoryLockElector({
    pool,
    name,
    logger,
    retryEveryMs: 100,
    checkEveryMs: 100,
    checkTimeoutMs: 500,
  });
  const g = new LeaderGroup({ elector, logger });
  for (const task of tasks) g.add(task);
  groups.push(g);
  return g;
}

const lockName = () => `group:${randomBytes(4).toString("hex")}`;
const allRunning = (tasks: Probe[]) => tasks.every((t) => t.running());

describe("LeaderGroup over a PostgreSQL advisory lock", () => {
  it("runs every task on the one replica that leads, under one lock, and none on the other", async () => {
    const name = lockName();
    const a = [probe("a1"), probe("a2")];
    const b = [probe("b1"), probe("b2")];
    const ga = group(pools[0], name, a);
    const gb = group(pools[1], name, b);
    ga.start();
    await waitFor("a to lead with every task", () => allRunning(a));
    gb.start();
    await sleep(500);
    expect([ga.isLeader(), gb.isLeader()]).toEqual([true, false]);
    expect(b.map((t) => t.runs.length)).toEqual([0, 0]);
    expect(a.map((t) => t.runs.length)).toEqual([1, 1]);
    expect(await lockHolders(pools[0], name)).toBe(1);
  });

  it("on stop() aborts every task, waits for them, then hands leadership to the peer", async () => {
    const name = lockName();
    const a = [probe("a1", { cleanupMs: 300 }), probe("a2", { cleanupMs: 100 })];
    const b = [probe("b1"), probe("b2")];
    const ga = group(pools[0], name, a);
    const gb = group(pools[1], name, b);
    ga.start();
    await waitFor("a to lead", () => allRunning(a));
    gb.start();

    await ga.stop();
    // stop() resolved only after both tasks had returned.
    expect(a.map((t) => t.runs[0]?.endedAt !== undefined)).toEqual([true, true]);
    expect(a[0]!.runs[0]!.reason).toBeInstanceOf(LeadershipLostError);
    expect(ga.isLeader()).toBe(false);
    await waitFor("b to take over", () => allRunning(b), 3_000);
    // The lock was released only after the slowest task stopped: the terms never overlapped.
    const aEnded = Math.max(...a.map((t) => t.runs[0]!.endedAt!));
    expect(Math.min(...b.map((t) => t.runs[0]!.startedAt))).toBeGreaterThanOrEqual(aEnded);
    expect(a.map((t) => t.runs.length)).toEqual([1, 1]);
  });

  it("aborts every task and fails their fence when leadership is lost, and campaigns again", async () => {
    const name = lockName();
    const a = [probe("a1"), probe("a2")];
    const b = [probe("b1")];
    const ga = group(pools[0], name, a);
    const gb = group(pools[1], name, b);
    ga.start();
    await waitFor("a to lead", () => allRunning(a));
    gb.start();
    const fence = a[1]!.runs[0]!.fence;
    await fence(drizzle(pools[0]));

    expect(await killLockSession(pools[1], name)).toBe(1);
    await waitFor(
      "a's tasks to stop",
      () => a.every((t) => t.runs[0]?.endedAt !== undefined),
      2_000,
    );
    for (const t of a) expect(t.runs[0]!.reason).toBeInstanceOf(LeadershipLostError);
    await expect(fence(drizzle(pools[0]))).rejects.toBeInstanceOf(LeadershipLostError);

    // Whoever wins next, a campaigns again: once b stops, a leads and runs every task anew.
    await waitFor("someone to lead", () => ga.isLeader() || gb.isLeader(), 3_000);
    await gb.stop();
    await waitFor("a to lead again", () => allRunning(a) && a.every((t) => t.runs.length >= 2));
    expect(ga.isLeader()).toBe(true);
  });

  it("ends the term for every task when one fails: the others abort, leadership is handed back, all run again", async () => {
    const name = lockName();
    const logger = recordingLogger();
    const boom = new Error("boom");
    const failing = probe("failing", { end: (run) => (run === 1 ? boom : undefined) });
    const steady = probe("steady", { cleanupMs: 50 });
    const g = group(pools[0], name, [failing, steady], logger);
    g.start();

    await waitFor(
      "both tasks to run a second time",
      () => allRunning([failing, steady]) && steady.runs.length === 2,
      5_000,
    );
    const first = steady.runs[0]!;
    expect(first.reason).toBeInstanceOf(LeadershipLostError);
    expect((first.reason as Error).cause).toBe(boom);
    expect(first.endedAt).toBeLessThanOrEqual(steady.runs[1]!.startedAt);
    const messages = logger.entries.map((e) => `${e.level} ${e.msg}`);
    const failed = messages.indexOf("error leader task failed; handing over");
    expect(failed).toBeGreaterThan(-1);
    expect(logger.entries[failed]!.obj).toMatchObject({ err: boom });
    expect(logger.entries.find((e) => e.level === "warn")?.obj).toEqual({ task: "failing" });
    // Released, then won again: two acquisitions around one release.
    expect(messages.filter((m) => m === "info leadership acquired")).toHaveLength(2);
    expect(messages.indexOf("info leadership released")).toBeGreaterThan(failed);
    expect(g.isLeader()).toBe(true);
  });

  it("ends the term the same way when a task returns while leading", async () => {
    const name = lockName();
    const logger = recordingLogger();
    const quitter = probe("quitter", { end: (run) => (run === 1 ? "return" : undefined) });
    const steady = probe("steady");
    const g = group(pools[0], name, [quitter, steady], logger);
    g.start();
    await waitFor(
      "both to run a second time",
      () => allRunning([quitter, steady]) && steady.runs.length === 2,
      5_000,
    );
    expect(steady.runs[0]!.reason).toBeInstanceOf(LeadershipLostError);
    expect(logger.entries.find((e) => e.level === "warn")).toMatchObject({
      obj: { task: "quitter" },
      msg: "leader task ended while leading; stopping the other tasks and handing over",
    });
    expect(logger.entries.some((e) => e.level === "error")).toBe(false);
  });

  it("does not campaign without tasks, and takes no task once started", async () => {
    const name = lockName();
    const empty = group(pools[0], name, []);
    empty.start();
    await sleep(300);
    expect(await lockHolders(pools[0], name)).toBe(0);
    expect(empty.isLeader()).toBe(false);

    const busy = group(pools[1], name, [probe("t")]);
    busy.start();
    expect(() => busy.add(probe("late"))).toThrow(/added after the group started/);
    await waitFor("the busy group to lead", () => busy.isLeader());
    expect(await lockHolders(pools[0], name)).toBe(1);
  });
});
