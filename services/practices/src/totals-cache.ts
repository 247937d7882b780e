/**
 * Short-lived list totals. A total is a COUNT over the whole union (a full scan of both sources),
 * while a page reads only its own rows; reusing a total for the same filters and day for a few
 * seconds keeps list requests cheap. Concurrent misses share one count; a failed count is not
 * kept. Bounded, oldest entry first out, because `search` and `province` are free text.
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
