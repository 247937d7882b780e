import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { BodyPool } from "../src/body-pool.ts";

const pool = (options: Partial<ConstructorParameters<typeof BodyPool>[0]> = {}) =>
  new BodyPool({ bufferBytes: 1024, maxFree: 2, idleMs: 60_000, ...options });

describe("BodyPool", () => {
  it("hands a released buffer out again instead of allocating", () => {
    const bodies = pool();
    const first = bodies.take(100);
    first.release();
    for (let i = 0; i < 100; i++) {
      const next = bodies.take(1024);
      expect(next.buffer).toBe(first.buffer);
      next.release();
    }
    expect(bodies.allocated).toBe(1);
  });

  it("never hands out a buffer that is still taken", () => {
    const bodies = pool();
    const taken = Array.from({ length: 5 }, () => bodies.take(10));
    expect(new Set(taken.map((t) => t.buffer)).size).toBe(5);
    expect(bodies.allocated).toBe(5);
  });

  it("keeps at most maxFree buffers, and a buffer released twice only once", () => {
    const bodies = pool({ maxFree: 2 });
    const taken = Array.from({ length: 4 }, () => bodies.take(10));
    for (const t of taken) t.release();
    expect(bodies.free).toBe(2);
    const again = pool();
    const one = again.take(10);
    one.release();
    one.release();
    expect(again.free).toBe(1);
    expect(again.take(10).buffer).not.toBe(again.take(10).buffer);
  });

  it("gives a body larger than its buffers one of its own, outside the pool", () => {
    const bodies = pool({ bufferBytes: 1024 });
    const big = bodies.take(4096);
    expect(big.buffer.length).toBeGreaterThanOrEqual(4096);
    big.release();
    expect(bodies.free).toBe(0);
    expect(bodies.allocated).toBe(0);
  });

  it("releases its free buffers after a quiet spell, not while buffers are being taken", async () => {
    const bodies = pool({ idleMs: 80 });
    bodies.take(10).release();
    for (let i = 0; i < 6; i++) {
      await sleep(30);
      bodies.take(10).release();
    }
    expect(bodies.free).toBe(1);
    await expect.poll(() => bodies.free, { timeout: 1_000, interval: 20 }).toBe(0);
  });
});
