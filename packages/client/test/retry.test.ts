import { describe, expect, it } from "vitest";
import { retryable, retryDelayMs } from "../src/retry.ts";

describe("retry timing", () => {
  it("waits Retry-After plus at most 20 % jitter, and spreads clients apart", () => {
    const delays = Array.from({ length: 200 }, () => retryDelayMs(0, 5, {})!);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(5_000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(6_000);
    expect(new Set(delays).size).toBeGreaterThan(50);
  });

  it("backs off exponentially without Retry-After", () => {
    const floor = (retry: number) =>
      Math.min(
        ...Array.from({ length: 50 }, () => retryDelayMs(retry, null, { baseDelayMs: 100 })!),
      );
    expect(floor(0)).toBeGreaterThanOrEqual(100);
    expect(floor(3)).toBeGreaterThanOrEqual(800);
    expect(floor(3)).toBeLessThan(1_000);
  });

  it("does not wait longer than the bound: a longer Retry-After ends the retries", () => {
    expect(retryDelayMs(0, 31, {})).toBeNull();
    expect(retryDelayMs(0, 31, { maxDelayMs: 40_000 })).toBeGreaterThanOrEqual(31_000);
    expect(retryDelayMs(6, null, { baseDelayMs: 500, maxDelayMs: 30_000 })).toBeNull();
  });

  it("retries only what the service asked to be sent again", () => {
    expect([503, 429].map((s) => retryable(s, undefined))).toEqual([true, true]);
    expect(retryable(409, "IDEMPOTENT_REQUEST_IN_PROGRESS")).toBe(true);
    const others = [500, 409, 422, 401].map((s) => retryable(s, "CONFLICT"));
    expect(others).toEqual([false, false, false, false]);
  });
});
