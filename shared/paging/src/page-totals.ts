/**
 * The `total` of a paginated list (the envelope's meta.pagination) without counting on every
 * request. A total is a COUNT over every matching row, usually far more work than a page, so:
 *
 *   - a page that is not full ends the list: its total is exact without counting (offset + rows);
 *   - otherwise the count for the same query is reused for up to `ttlMs` (TotalsCache), and never
 *     reported lower than the page itself proves (offset + rows).
 *
 * So a total is at most its lifetime old (plus the time one recount takes, see RefreshingCache),
 * and only on pages that are full (or empty past the end). Page contents are always read fresh.
 */

/**
 * A value is kept for at least this many times as long as computing it took, so that keeping the
 * values of a busy list fresh costs the source at most about a tenth of one connection however
 * large the table grows (docs/decisions/growth.md, "Lifetimes that follow the cost").
 */
export const COST_FACTOR = 10;

interface Entry<T> {
  /** When the computation behind this entry started. */
  at: number;
  total: Promise<T>;
  /** How long the value is kept from `at` (ms); set once it arrived. */
  lifetimeMs?: number;
  /** The recount running for an entry past its lifetime. */
  recount?: Promise<T>;
}

/**
 * Short-lived values by query key (a list's total, a list's page marks). Concurrent misses share
 * one computation, however long it runs; a failed one is not kept. A value lives `ttlMs`, or
 * COST_FACTOR times as long as computing it took when that is longer. Past its lifetime it is
 * recomputed in the background while requests keep getting it, so no request waits for work that
 * an older value could answer: only the first request for a key, or one after a failure, waits. A
 * served value is therefore at most its lifetime plus one recomputation old (both bounded by the
 * source's query timeout). Bounded, oldest entry first out, because filters hold free text.
 */
export class RefreshingCache<T> {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, Entry<T>>();

  constructor(options: { ttlMs: number; now: () => number; maxEntries?: number }) {
    this.#ttlMs = options.ttlMs;
    this.#now = options.now;
    this.#maxEntries = options.maxEntries ?? 500;
  }

  /** How old a value may be (ms) before it is recomputed; 0 computes on every call. */
  get ttlMs(): number {
    return this.#ttlMs;
  }

  get(key: string, compute: () => Promise<T>): Promise<T> {
    if (this.#ttlMs <= 0) return compute();
    const now = this.#now();
    const hit = this.#entries.get(key);
    // Still being computed, or within its lifetime: share it.
    if (hit && (hit.lifetimeMs === undefined || now - hit.at < hit.lifetimeMs)) return hit.total;
    if (hit) {
      hit.recount ??= this.#recount(key, hit, compute, now);
      return hit.total;
    }
    return this.#store(key, compute(), now).total;
  }

  #store(key: string, total: Promise<T>, at: number): Entry<T> {
    const entry: Entry<T> = { at, total };
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    total.then(
      () => {
        entry.lifetimeMs = Math.max(this.#ttlMs, COST_FACTOR * (this.#now() - at));
      },
      () => {
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
      },
    );
    while (this.#entries.size > this.#maxEntries)
      this.#entries.delete(this.#entries.keys().next().value as string);
    return entry;
  }

  /**
   * Replaces `stale` once the new value arrives; a failed one drops it, so the next request
   * computes it itself.
   */
  #recount(key: string, stale: Entry<T>, compute: () => Promise<T>, at: number): Promise<T> {
    const recount = compute();
    recount.then(
      () => {
        if (this.#entries.get(key) === stale) this.#store(key, recount, at);
      },
      () => {
        if (this.#entries.get(key) === stale) this.#entries.delete(key);
      },
    );
    return recount;
  }
}

/** List totals (COUNTs) by query key. */
export class TotalsCache extends RefreshingCache<number> {}

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
  return (
    totalFromPage(rows, offset, perPage) ?? (rows > 0 ? Math.max(counted, offset + rows) : counted)
  );
}
