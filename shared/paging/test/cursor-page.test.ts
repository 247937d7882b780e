import { describe, expect, it } from "vitest";
import { ValidationError } from "@svc/errors";
import {
  cursorPage,
  cutPage,
  decodeCursor,
  encodeCursor,
  openCursorWalk,
  type CursorWalk,
} from "../src/index.ts";

/** A list whose cursors carry `at`, a number. */
const open = (cursor: string | undefined) =>
  openCursorWalk<number>({
    cursor,
    start: 0,
    parse: (fields) => (typeof fields.at === "number" ? fields.at : undefined),
    listName: "demo list",
  });

describe("a cursor walk", () => {
  it("starts at page 1 without a cursor, and resumes where the previous page's cursor says", () => {
    expect(open(undefined)).toEqual({ page: 1, state: 0 });
    const first = cursorPage(open(undefined), {
      ...cutPage(["a", "b", "c"], 2),
      perPage: 2,
      total: 3,
      next: { at: 2 },
    });
    expect(first).toMatchObject({
      items: ["a", "b"],
      page: 1,
      perPage: 2,
      total: 3,
      hasMore: true,
    });
    expect(open(first.nextCursor)).toEqual({ page: 2, state: 2 });
  });

  it("keeps the page number when a page shows nothing (a caught-up reader polls the same page)", () => {
    const walk: CursorWalk<number> = { page: 4, state: 9 };
    const empty = cursorPage(walk, { ...cutPage([], 5), perPage: 5, total: 15, next: { at: 9 } });
    expect(empty).toMatchObject({ items: [], page: 4, hasMore: false });
    expect(decodeCursor(empty.nextCursor, (v) => v)).toEqual({ v: 1, at: 9, n: 4 });
  });

  it("answers 422 on `cursor` for a cursor of another version, page number or list", () => {
    for (const bad of [
      "not a cursor",
      encodeCursor({ v: 2, n: 1, at: 0 }),
      encodeCursor({ v: 1, n: 0, at: 0 }),
      encodeCursor({ v: 1, n: 1.5, at: 0 }),
      encodeCursor({ v: 1, at: 0 }),
      encodeCursor({ v: 1, n: 1, at: "0" }),
      encodeCursor([1, 1, 0]),
    ]) {
      let thrown: unknown;
      try {
        open(bad);
      } catch (err) {
        thrown = err;
      }
      expect(thrown, bad).toBeInstanceOf(ValidationError);
      expect((thrown as ValidationError).details).toEqual([
        { field: "cursor", message: "is not a cursor of this demo list" },
      ]);
    }
  });
});
