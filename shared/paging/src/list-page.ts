import { pageTotal, totalFromPage, type TotalsCache } from "./page-totals.ts";

/** The rows a page asks of its source: `limit` rows after skipping `offset`. */
export interface PageWindow {
  offset: number;
  limit: number;
}

/** One page of a list, with the rows the whole list holds (see `readListPage` for how fresh). */
export interface ListPage<T> {
  items: T[];
  /** 1-based. */
  page: number;
  perPage: number;
  total: number;
}

/** A list as `readListPage` reads it: one filter set of one source, on one day. */
export interface CountedList<T> {
  /** The list's key in the totals cache: everything that decides which rows it holds. */
  key: string;
  /** The rows of `window`, in the list's order; fewer than `window.limit` at its end. */
  read(window: PageWindow): Promise<T[]>;
  /** Every row of the list. */
  count(): Promise<number>;
}

export interface ListPageRequest {
  /** 1-based page number. */
  page: number;
  perPage: number;
  /**
   * Start a count the cache does not hold together with the page read, so the request waits for
   * the slower of the two rather than both in turn; such a count then also runs for a page that
   * proves its own total. Without it, only a full page (or one past the end) counts, after the
   * page read.
   */
  countBesidePage?: boolean;
}

/**
 * Page `page` of `list`, read fresh, and its total: exact when the page is not full (it ends the
 * list), else the list's COUNT as `totals` keeps it (TotalsCache: reused for its lifetime,
 * recounted in the background), never fewer than the rows up to this page's end.
 */
export async function readListPage<T>(
  totals: TotalsCache,
  request: ListPageRequest,
  list: CountedList<T>,
): Promise<ListPage<T>> {
  const { page, perPage } = request;
  const window = { offset: (page - 1) * perPage, limit: perPage };
  const count = () => totals.get(list.key, () => list.count());
  const counted = request.countBesidePage ? count() : undefined;
  // Not awaited when the page proves the total (or the page read fails): its failure is not this
  // request's.
  counted?.catch(() => undefined);
  const items = await list.read(window);
  const total =
    totalFromPage(items.length, window.offset, perPage) ??
    pageTotal(items.length, window.offset, perPage, await (counted ?? count()));
  return { items, page, perPage, total };
}
