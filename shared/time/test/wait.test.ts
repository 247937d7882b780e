import { describe, expect, it } from "vitest";
import { backoffMs, bounded, jittered, sleep } from "../src/index.ts";

describe("waiting between retries", () => {
  it("sleep ends early, without rejecting, when its signal aborts", async () => {
    const abort = new AbortController();
    const started = performance.now();
    setTimeout(() => abort.abort(), 20);
    await sleep(10_000, abort.signal);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("sleep on an aborted signal returns at once; without one it waits its time", async () => {
    const started = performance.now();
    await sleep(10_000, AbortSignal.abort());
    expect(performance.now() - started).toBeLessThan(100);
    const waited = performance.now();
    await sleep(30);
    expect(performance.now() - waited).toBeGreaterThanOrEqual(25);
  });

  it("backoff doubles per failure up to its cap, jittered down to half", () => {
    for (let i = 0; i < 200; i++) {
      const first = backoffMs(1, 100, 10_000);
      expect(first).toBeGreaterThanOrEqual(50);
      expect(first).toBeLessThanOrEqual(100);
      const fourth = backoffMs(4, 100, 10_000);
      expect(fourth).toBeGreaterThanOrEqual(400);
      expect(fourth).toBeLessThanOrEqual(800);
      const capped = backoffMs(30, 100, 10_000);
      expect(capped).toBeGreaterThanOrEqual(5_000);
      expect(capped).toBeLessThanOrEqual(10_000);
    }
  });

  it("jitter only stretches, by at most its factor", () => {
    for (let i = 0; i < 200; i++) {
      const value = jittered(1_000, 0.2);
      expect(value).toBeGreaterThanOrEqual(1_000);
      expect(value).toBeLessThanOrEqual(1_200);
    }
  });

  it("bounded gives work's value in time, and undefined for work that fails or overruns", async () => {
    expect(await bounded(Promise.resolve(7), 1_000)).toBe(7);
    expect(await bounded(Promise.reject(new Error("unreachable")), 1_000)).toBeUndefined();
    const started = performance.now();
    expect(await bounded(new Promise(() => {}), 20)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
