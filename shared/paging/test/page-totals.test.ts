import { describe, expect, it } from "vitest";
import { pageTotal, TotalsCache, totalFromPage } from "../src/page-totals.ts";

function setup(ttlMs: number, maxEntries?: number) {
  let now = 1_000;
  let calls = 0;
  const cache = new TotalsCache({ ttlMs, now: () => now, maxEntries });
  const count = (value: number) => () => {
    calls++;
    return Promise.resolve(value);
  };
  return { cache, count, calls: () => calls, advance: (ms: number) => (now += ms) };
}

describe("TotalsCache", () => {
  it("reuses a total within its lifetime, then serves it while one recount runs, then the recount", async () => {
    const t = setup(5_000);
    expect(await t.cache.get("k", t.count(7))).toBe(7);
    t.advance(4_999);
    expect(await t.cache.get("k", t.count(8))).toBe(7);
    expect(t.calls()).toBe(1);
    t.advance(1);
    let finish = (_: number) => {};
    const slow = () => {
      t.count(0)();
      return new Promise<number>((resolve) => (finish = resolve));
    };
    // Past its lifetime: the stale total answers at once; concurrent calls start one recount.
    expect(await Promise.all([t.cache.get("k", slow), t.cache.get("k", slow)])).toEqual([7, 7]);
    expect(t.calls()).toBe(2);
    finish(9);
    await Promise.resolve();
    expect(await t.cache.get("k", t.count(10))).toBe(9);
    expect(t.calls()).toBe(2);
  });

  it("drops a total whose recount failed, so the next call counts and waits for it", async () => {
    const t = setup(5_000);
    await t.cache.get("k", t.count(7));
    t.advance(5_000);
    expect(await t.cache.get("k", () => Promise.reject(new Error("down")))).toBe(7);
    await new Promise((r) => setImmediate(r));
    expect(await t.cache.get("k", t.count(11))).toBe(11);
  });

  it("dates a recounted total from when the recount started", async () => {
    const t = setup(5_000);
    await t.cache.get("k", t.count(1));
    t.advance(6_000);
    await t.cache.get("k", t.count(2));
    await new Promise((r) => setImmediate(r));
    t.advance(4_999);
    expect(await t.cache.get("k", t.count(3))).toBe(2);
    t.advance(1);
    expect(await t.cache.get("k", t.count(4))).toBe(2);
    await new Promise((r) => setImmediate(r));
    expect(await t.cache.get("k", t.count(5))).toBe(4);
  });

  it("keeps a total that took long to count ten times as long as counting took", async () => {
    const t = setup(5_000);
    const slowCount = (value: number, ms: number) => () => {
      t.count(value)();
      t.advance(ms);
      return Promise.resolve(value);
    };
    expect(await t.cache.get("k", slowCount(1, 2_000))).toBe(1);
    t.advance(17_999);
    expect(await t.cache.get("k", t.count(2))).toBe(1);
    expect(t.calls()).toBe(1);
    t.advance(1);
    expect(await t.cache.get("k", t.count(3))).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(t.calls()).toBe(2);
    // The quick recount brings the lifetime back to ttlMs.
    t.advance(4_999);
    expect(await t.cache.get("k", t.count(4))).toBe(3);
    t.advance(1);
    await t.cache.get("k", t.count(5));
    expect(t.calls()).toBe(3);
  });

  it("shares a count that runs past the lifetime instead of starting another", async () => {
    const t = setup(5_000);
    let finish = (_: number) => {};
    const first = t.cache.get("k", () => {
      t.count(0)();
      return new Promise<number>((resolve) => (finish = resolve));
    });
    t.advance(6_000);
    const second = t.cache.get("k", t.count(2));
    finish(1);
    expect(await Promise.all([first, second])).toEqual([1, 1]);
    expect(t.calls()).toBe(1);
  });

  it("counts on every call when its lifetime is 0", async () => {
    const t = setup(0);
    await t.cache.get("k", t.count(1));
    await t.cache.get("k", t.count(2));
    expect(t.calls()).toBe(2);
  });

  it("shares one count between concurrent misses and keeps keys apart", async () => {
    const t = setup(5_000);
    const [a, b, c] = await Promise.all([
      t.cache.get("k", t.count(1)),
      t.cache.get("k", t.count(2)),
      t.cache.get("other", t.count(3)),
    ]);
    expect([a, b, c]).toEqual([1, 1, 3]);
    expect(t.calls()).toBe(2);
  });

  it("does not keep a failed count", async () => {
    const t = setup(5_000);
    await expect(t.cache.get("k", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await t.cache.get("k", t.count(4))).toBe(4);
  });

  it("holds at most maxEntries totals, dropping the oldest", async () => {
    const t = setup(5_000, 2);
    await t.cache.get("a", t.count(1));
    await t.cache.get("b", t.count(2));
    await t.cache.get("c", t.count(3));
    expect(await t.cache.get("a", t.count(10))).toBe(10);
    expect(await t.cache.get("c", t.count(30))).toBe(3);
  });
});

describe("page totals", () => {
  it("takes the total from a page that is not full, without a count", () => {
    expect(totalFromPage(7, 0, 25)).toBe(7);
    expect(totalFromPage(3, 50, 25)).toBe(53);
    expect(totalFromPage(0, 0, 25)).toBe(0);
  });

  it("needs a count for a full page or an empty page past the start", () => {
    expect(totalFromPage(25, 0, 25)).toBeUndefined();
    expect(totalFromPage(0, 75, 25)).toBeUndefined();
  });

  it("reports a stale count that is too low as the rows this full page proves", () => {
    expect(pageTotal(25, 100, 25, 110)).toBe(125);
    expect(pageTotal(25, 100, 25, 300)).toBe(300);
  });

  it("prefers what a partial page proves over a stale count either way", () => {
    expect(pageTotal(10, 100, 25, 300)).toBe(110);
    expect(pageTotal(10, 100, 25, 50)).toBe(110);
  });

  it("reports the count for an empty page past the end", () => {
    expect(pageTotal(0, 500, 25, 42)).toBe(42);
  });
});
