import { describe, expect, it } from "vitest";
import { PageMarks } from "../src/page-marks.ts";

function setup(spacing: number, ttlMs = 5_000) {
  let now = 1_000;
  const reads: Array<{ list: string; spacing: number }> = [];
  const marks = new PageMarks<string>({ spacing, ttlMs, now: () => now });
  const reader = (list: string, keys: string[]) => (s: number) => {
    reads.push({ list, spacing: s });
    return Promise.resolve(keys);
  };
  return { marks, reader, reads, advance: (ms: number) => (now += ms) };
}

describe("PageMarks", () => {
  it("starts a page from the mark at or before its offset and skips the rest, past the last mark from the last one", async () => {
    const t = setup(5);
    const read = t.reader("all", ["a", "f", "k"]);
    const at = (offset: number) => t.marks.start("all", offset, read);
    expect(await at(0)).toEqual({ index: 0, key: "a", offset: 0 });
    expect(await at(4)).toEqual({ index: 0, key: "a", offset: 4 });
    expect(await at(5)).toEqual({ index: 1, key: "f", offset: 0 });
    expect(await at(12)).toEqual({ index: 2, key: "k", offset: 2 });
    expect(await at(100)).toEqual({ index: 2, key: "k", offset: 90 });
    // Read once, with the spacing they are kept at.
    expect(t.reads).toEqual([{ list: "all", spacing: 5 }]);
  });

  it("has no start for an empty list", async () => {
    const t = setup(3);
    expect(await t.marks.start("none", 7, t.reader("none", []))).toBeUndefined();
  });

  it("keeps each list's marks apart, and reads them again once past their lifetime", async () => {
    const t = setup(2, 1_000);
    expect((await t.marks.start("x", 2, t.reader("x", ["x0", "x2"])))?.key).toBe("x2");
    expect((await t.marks.start("y", 2, t.reader("y", ["y0", "y2"])))?.key).toBe("y2");
    t.advance(1_000);
    // The kept marks answer while the re-read runs; then the new ones.
    expect((await t.marks.start("x", 2, t.reader("x", ["x0", "x1"])))?.key).toBe("x2");
    expect((await t.marks.start("x", 2, t.reader("x", ["never"])))?.key).toBe("x1");
    expect(t.reads.map((r) => r.list)).toEqual(["x", "y", "x"]);
  });

  it("are none without options or with a lifetime of 0, and take the source's spacing unless told another", () => {
    const now = () => 0;
    expect(PageMarks.of(undefined, { spacing: 25 })).toBeUndefined();
    expect(PageMarks.of({ ttlMs: 0, now }, { spacing: 25 })).toBeUndefined();
    expect(PageMarks.of({ ttlMs: 5_000, now }, { spacing: 25 })?.spacing).toBe(25);
    expect(PageMarks.of({ ttlMs: 5_000, now, spacing: 7 }, { spacing: 25 })?.spacing).toBe(7);
  });

  it("refuses a spacing that is not a positive integer", () => {
    for (const spacing of [0, -1, 2.5, Number.NaN])
      expect(() => new PageMarks({ spacing, ttlMs: 1, now: () => 0 })).toThrow(RangeError);
  });
});
