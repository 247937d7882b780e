/**
 * The `total` of a paginated list (spec 2.1 meta.pagination) without counting on every request.
 * A total is a COUNT over every matching row, usually far more work than reading one page, so:
 *
 *   - a page that is not full ends the list: its total is exact without counting (offset + rows);
 *   - otherwise the count for the same query is reused for up to `ttlMs` (TotalsCache), and never
 *     reported lower than the page itself proves (offset + rows).
 *
 * So a total is at most `ttlMs` old, and only on pages that are full (or empty past the end).
 * Page contents are always read fresh.
 */

/**
 * Short-lived counts by query key. Concurrent misses share one count; a failed count is not kept.
 * Bounded, oldest entry first out, because filters hold free text.
 */
export class TotalsCache {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, { at: number; total: Promise<number> }>();

  constructor(options: { ttlMs: number; now: () => number; maxEntries?: number }) {
    this.#ttlMs = options.ttlMs;
    this.#now = options.now;
    this.#maxEntries = options.maxEntries ?? 500;
  }

  /** How old a total may be (ms); 0 counts on every call. */
  get ttlMs(): number {
    return this.#ttlMs;
  }

  get(key: string, count: () => Promise<number>): Promise<number> {
    if (this.#ttlMs <= 0) return count();
    const now = this.#now();
    const hit = this.#entries.get(key);
    if (hit && now - hit.at < this.#ttlMs) return hit.total;
    const total = count();
    this.#entries.delete(key);
    this.#entries.set(key, { at: now, total });
    total.catch(() => {
      if (this.#entries.get(key)?.total === total) this.#entries.delete(key);
    });
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    return total;
  }
}

/**
 * The total a page proves on its own: a page that is not full (or the empty first page) ends the
 * list, so offset + rows is exact. Undefined when only a count can tell (a full page, or an empty
 * page past the start).
 */
export function totalFromPage(rows: number, offset: number, perPage: number): number | undefined {
  if (rows < perPage && (rows > 0 || offset === 0)) return offset + rows;
  return undefined;
}

/**
 * The total to report for a page of `rows` at `offset`, given a count that may be up to the
 * cache's lifetime old: exact when the page proves it, else the count, but never fewer than the
 * rows up to the end of this (full) page.
 */
export function pageTotal(rows: number, offset: number, perPage: number, counted: number): number {
  return totalFromPage(rows, offset, perPage) ?? (rows > 0 ? Math.max(counted, offset + rows) : counted);
}
