/**
 * Lists walked by an opaque cursor (the CRM mirror read, the events feed): a walk resumes from the
 * previous page's cursor, reads one row more than a page to know whether more follow, and hands out
 * the cursor after the page. Every cursor carries `v` (its version, 1) and `n` (the number of the
 * page it reads); the list adds its own fields (position, filters).
 */
import { ValidationError } from "@svc/errors";
import { decodeCursor, encodeCursor } from "./cursor.ts";

/** Where a walk stands: the number of the page it reads, and the list's own state. */
export type CursorWalk<S> = { page: number; state: S };

/** One page of a walk: its items, its number, the list's total and the cursor that reads on. */
export interface CursorPage<T> {
  items: T[];
  page: number;
  perPage: number;
  total: number;
  nextCursor: string;
  hasMore: boolean;
}

/**
 * The walk a request continues: from `cursor` (a previous page's next cursor) or, without one,
 * page 1 at `start`. `parse` reads the list's own fields of a cursor and must check each
 * (undefined: not valid); a cursor this list did not make is 422 on `cursor`.
 */
export function openCursorWalk<S>(options: {
  cursor: string | undefined;
  start: S;
  parse: (fields: Record<string, unknown>) => S | undefined;
  /** What the error calls the list ("is not a cursor of this list"). */
  listName: string;
}): CursorWalk<S> {
  if (options.cursor === undefined) return { page: 1, state: options.start };
  const walk = decodeCursor(options.cursor, (value): CursorWalk<S> | undefined => {
    if (typeof value !== "object" || value === null) return undefined;
    const fields = value as Record<string, unknown>;
    const { v, n } = fields;
    if (v !== 1 || typeof n !== "number" || !Number.isSafeInteger(n) || n < 1) return undefined;
    const state = options.parse(fields);
    return state === undefined ? undefined : { page: n, state };
  });
  if (!walk)
    throw new ValidationError([
      { field: "cursor", message: `is not a cursor of this ${options.listName}` },
    ]);
  return walk;
}

/** The first `perPage` of `rows`, read with one more so that `hasMore` says whether more follow. */
export function cutPage<T>(rows: T[], perPage: number): { shown: T[]; hasMore: boolean } {
  return { shown: rows.slice(0, perPage), hasMore: rows.length > perPage };
}

/**
 * The page `walk` shows, and the cursor after it with the list's own fields `next`. The page
 * number moves on only when this page showed something.
 */
export function cursorPage<T>(
  walk: CursorWalk<unknown>,
  page: {
    shown: T[];
    hasMore: boolean;
    perPage: number;
    total: number;
    next: Record<string, unknown>;
  },
): CursorPage<T> {
  return {
    items: page.shown,
    page: walk.page,
    perPage: page.perPage,
    total: page.total,
    nextCursor: encodeCursor({
      v: 1,
      ...page.next,
      n: page.shown.length > 0 ? walk.page + 1 : walk.page,
    }),
    hasMore: page.hasMore,
  };
}
