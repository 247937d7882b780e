import { describe, expect, it } from "vitest";
import { readListPage, type PageWindow } from "../src/list-page.ts";
import { TotalsCache } from "../src/page-totals.ts";

/** A list of `rows` numbers, recording what it was asked for. */
function numbers(rows: number, key = "all") {
  const reads: PageWindow[] = [];
  let counts = 0;
  let held = rows;
  return {
    reads,
    counts: () => counts,
    /** Rows added or removed behind the cache's back. */
    resize: (n: number) => (held = n),
    list: {
      key,
      read: (window: PageWindow) => {
        reads.push(window);
        const end = Math.min(held, window.offset + window.limit);
        return Promise.resolve(
          Array.from({ length: Math.max(0, end - window.offset) }, (_, i) => window.offset + i),
        );
      },
      count: () => {
        counts++;
        return Promise.resolve(held);
      },
    },
  };
}

const cache = (ttlMs = 60_000) => new TotalsCache({ ttlMs, now: () => 0 });

describe("readListPage", () => {
  it("reads the page's window and answers its number, size and total", async () => {
    const source = numbers(23);
    const result = await readListPage(cache(), { page: 2, perPage: 10 }, source.list);
    expect(result).toEqual({
      items: [10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
      page: 2,
      perPage: 10,
      total: 23,
    });
    expect(source.reads).toEqual([{ offset: 10, limit: 10 }]);
  });

  it("counts only for a full page or one past the end, not for a page that ends the list", async () => {
    const source = numbers(23);
    const totals = cache(0);
    expect((await readListPage(totals, { page: 3, perPage: 10 }, source.list)).total).toBe(23);
    expect((await readListPage(totals, { page: 1, perPage: 30 }, source.list)).total).toBe(23);
    expect(source.counts()).toBe(0);
    expect((await readListPage(totals, { page: 9, perPage: 10 }, source.list)).total).toBe(23);
    expect((await readListPage(totals, { page: 1, perPage: 10 }, source.list)).total).toBe(23);
    expect(source.counts()).toBe(2);
  });

  it("answers an empty list's first page with total 0 without counting", async () => {
    const source = numbers(0);
    const result = await readListPage(cache(), { page: 1, perPage: 10 }, source.list);
    expect(result).toEqual({ items: [], page: 1, perPage: 10, total: 0 });
    expect(source.counts()).toBe(0);
  });

  it("reuses the cached count, but never reports fewer rows than the page proves", async () => {
    const source = numbers(25);
    const totals = cache();
    expect((await readListPage(totals, { page: 1, perPage: 10 }, source.list)).total).toBe(25);
    source.resize(40);
    // The cached 25 is kept on a full page ...
    expect((await readListPage(totals, { page: 2, perPage: 10 }, source.list)).total).toBe(25);
    // ... up to what the page itself shows to exist,
    expect((await readListPage(totals, { page: 3, perPage: 10 }, source.list)).total).toBe(30);
    // and a page that is not full is exact at once.
    expect((await readListPage(totals, { page: 3, perPage: 15 }, source.list)).total).toBe(40);
    expect(source.counts()).toBe(1);
  });

  it("keeps the totals of different lists apart", async () => {
    const totals = cache();
    const short = numbers(12, "short");
    const long = numbers(50, "long");
    expect((await readListPage(totals, { page: 1, perPage: 10 }, short.list)).total).toBe(12);
    expect((await readListPage(totals, { page: 1, perPage: 10 }, long.list)).total).toBe(50);
  });

  it("with countBesidePage, starts the count before the page read ends, even for a page that ends the list", async () => {
    const source = numbers(5);
    let finishRead = () => {};
    const slowRead = (window: PageWindow) =>
      new Promise<void>((resolve) => (finishRead = resolve)).then(() => source.list.read(window));
    const pending = readListPage(
      cache(),
      { page: 1, perPage: 10, countBesidePage: true },
      { ...source.list, read: slowRead },
    );
    await Promise.resolve();
    expect(source.counts()).toBe(1);
    finishRead();
    expect((await pending).total).toBe(5);
  });

  it("with countBesidePage, answers a page that proves its total even when the count fails", async () => {
    const source = numbers(5);
    const result = await readListPage(
      cache(),
      { page: 1, perPage: 10, countBesidePage: true },
      { ...source.list, count: () => Promise.reject(new Error("count timed out")) },
    );
    expect(result.total).toBe(5);
  });

  it("fails a full page whose count fails", async () => {
    const source = numbers(50);
    const failing = { ...source.list, count: () => Promise.reject(new Error("count timed out")) };
    await expect(readListPage(cache(), { page: 1, perPage: 10 }, failing)).rejects.toThrow(
      "count timed out",
    );
    await expect(
      readListPage(cache(), { page: 1, perPage: 10, countBesidePage: true }, failing),
    ).rejects.toThrow("count timed out");
  });
});
