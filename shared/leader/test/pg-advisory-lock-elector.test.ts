import { randomBytes } from "node:crypto";
import { drizzle } from "drizzle-orm/node-postgres";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgPool } from "@svc/db";
import { TcpProxy, testEnv } from "@svc/testing";
import { LeadershipLostError, PgAdvisoryLockElector } from "../src/index.ts";
import type { Fence } from "../src/index.ts";
import {
  killLockSession,
  lockHolders,
  recordingLogger,
  sleep,
  twoProcesses,
  waitFor,
} from "./support/helpers.ts";

let world: Awaited<ReturnType<typeof twoProcesses>>;
let pool: pg.Pool;
let otherPool: pg.Pool;
const cleanups: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  world = await twoProcesses();
  [pool, otherPool] = world.pools;
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await world.close();
});

const lockName = () => `test:${randomBytes(4).toString("hex")}`;
const elector = (pool: pg.Pool, name: string) =>
  new PgAdvisoryLockElector({
    pool,
    name,
    logger: recordingLogger(),
    retryEveryMs: 100,
    checkEveryMs: 100,
    checkTimeoutMs: 500,
  });

describe("leader election with a PostgreSQL advisory lock", () => {
  it("lets one process lead; a lost lock session aborts its task, fails its fence, and the peer takes over", async () => {
    const name = lockName();
    const [first, second] = [elector(pool, name), elector(otherPool, name)];
    const stops = [new AbortController(), new AbortController()];
    let term: { signal: AbortSignal; fence: Fence } | undefined;
    let secondLed = false;
    const untilAborted = (signal: AbortSignal) =>
      new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
    const runs = [
      first.run(async (signal, fence) => {
        term = { signal, fence };
        await untilAborted(signal);
      }, stops[0]!.signal),
    ];
    await waitFor("the first to lead", () => term !== undefined);
    runs.push(
      second.run(async (signal) => {
        secondLed = true;
        await untilAborted(signal);
      }, stops[1]!.signal),
    );
    await term!.fence(drizzle(pool));
    await sleep(400);
    expect([first.isLeader(), second.isLeader(), secondLed]).toEqual([true, false, false]);

    expect(await killLockSession(pool, name)).toBe(1);
    await waitFor("the first to notice", () => term!.signal.aborted, 2_000);
    await expect(term!.fence(drizzle(pool))).rejects.toBeInstanceOf(LeadershipLostError);
    stops[0]!.abort();
    await waitFor("the second to lead", () => second.isLeader(), 3_000);
    expect(first.isLeader()).toBe(false);
    stops[1]!.abort();
    await Promise.all(runs);
  });

  it("passes a freed lock at once to the peer already waiting, not to a candidate that comes after", async () => {
    const name = lockName();
    const patient = (p: pg.Pool) =>
      new PgAdvisoryLockElector({ pool: p, name, logger: recordingLogger(), retryEveryMs: 5_000 });
    const [first, waiting, late] = [elector(pool, name), patient(otherPool), elector(pool, name)];
    const stop = new AbortController();
    const led: string[] = [];
    const leadAs = (who: string) => async (signal: AbortSignal) => {
      led.push(who);
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
    };
    const runs = [first.run(leadAs("first"), stop.signal)];
    await waitFor("the first to lead", () => first.isLeader());
    runs.push(waiting.run(leadAs("waiting"), stop.signal));
    await sleep(300);
    expect(await killLockSession(otherPool, name)).toBe(1);
    const killedAt = Date.now();
    // A newcomer, as a restarted leader would be: it must queue behind the waiting peer.
    runs.push(late.run(leadAs("late"), stop.signal));
    await waitFor("a new leader", () => led.length > 1, 3_000);
    expect(led).toEqual(["first", "waiting"]);
    expect(Date.now() - killedAt).toBeLessThan(1_000);
    await sleep(300);
    expect(led).toEqual(["first", "waiting"]);
    stop.abort();
    await Promise.all(runs);
    expect(await lockHolders(pool, name)).toBe(0);
  });

  it("hands over within seconds when the leader's lock connection freezes: it aborts itself and the server ends its session", async () => {
    const name = lockName();
    const target = new URL(testEnv.TEST_PG_URL);
    const proxy = await TcpProxy.start({
      host: target.hostname,
      port: Number(target.port || 5432),
    });
    cleanups.push(() => proxy.close());
    const url = new URL(world.url);
    url.host = `127.0.0.1:${proxy.port}`;
    const frozenPool = createPgPool({
      url: url.toString(),
      schema: "public",
      applicationName: "frozen-leader",
      connectTimeoutMs: 500,
    });
    cleanups.push(() => frozenPool.end());
    const first = new PgAdvisoryLockElector({
      pool: frozenPool,
      name,
      logger: recordingLogger(),
      retryEveryMs: 100,
      checkEveryMs: 100,
      checkTimeoutMs: 300,
      sessionIdleTimeoutMs: 1_000,
    });
    const second = elector(otherPool, name);
    const stops = [new AbortController(), new AbortController()];
    let firstSignal: AbortSignal | undefined;
    const untilAborted = (signal: AbortSignal) =>
      new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
    const runs = [
      first.run(async (signal) => {
        firstSignal = signal;
        await untilAborted(signal);
      }, stops[0]!.signal),
    ];
    await waitFor("the first to lead", () => first.isLeader());
    runs.push(second.run((signal) => untilAborted(signal), stops[1]!.signal));

    proxy.pause();
    const frozenAt = Date.now();
    await waitFor("the frozen leader to abort itself", () => firstSignal?.aborted === true, 2_000);
    await waitFor("the peer to lead", () => second.isLeader(), 5_000);
    expect(Date.now() - frozenAt).toBeLessThan(3_000);
    expect(first.isLeader()).toBe(false);
    stops.forEach((s) => s.abort());
    proxy.resume();
    await Promise.all(runs);
  });

  it("ends at once when a campaign attempt in flight wins the lock after stop", async () => {
    const name = lockName();
    // The pool lends its connection only once `lend` is called, so the attempt wins after stop.
    let lend = () => {};
    const gated = new Promise<void>((resolve) => (lend = resolve));
    const slowPool = { connect: async () => (await gated, pool.connect()) } as unknown as pg.Pool;
    const e = elector(slowPool, name);
    const stop = new AbortController();
    const signals: AbortSignal[] = [];
    const done = e.run(async (signal) => {
      signals.push(signal);
      await new Promise<void>((resolve) => {
        signal.addEventListener("abort", () => resolve(), { once: true });
        if (signal.aborted) resolve();
      });
    }, stop.signal);
    await sleep(50);
    stop.abort();
    lend();
    const outcome = await Promise.race([done.then(() => "ended"), sleep(3_000).then(() => "hung")]);
    expect(outcome).toBe("ended");
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(e.isLeader()).toBe(false);
    expect(await lockHolders(pool, name)).toBe(0);
  });
});
