/** Outcome of taking from a bucket; `retryAfterSeconds` is when the next request would pass. */
export type Take = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface RateLimiterOptions {
  /** Requests allowed at once after a quiet period. */
  burst: number;
  /** Sustained rate. */
  perMinute: number;
  /**
   * Keys remembered; beyond it the least recently inserted go (an attacker spraying keys cannot
   * grow memory).
   */
  maxKeys?: number;
  now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** A token bucket per key (a caller IP, a client id, a portal session), in memory, per process. */
export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #burst: number;
  readonly #perMs: number;
  readonly #maxKeys: number;
  readonly #now: () => number;

  constructor(options: RateLimiterOptions) {
    this.#burst = options.burst;
    this.#perMs = options.perMinute / 60_000;
    this.#maxKeys = options.maxKeys ?? 50_000;
    this.#now = options.now ?? Date.now;
  }

  take(key: string): Take {
    const now = this.#now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.#burst, at: now };
    bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.at) * this.#perMs);
    bucket.at = now;
    if (!this.#buckets.has(key)) this.#insert(key, bucket);
    if (bucket.tokens < 1)
      return {
        ok: false,
        retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.#perMs / 1000)),
      };
    bucket.tokens -= 1;
    return { ok: true };
  }

  #insert(key: string, bucket: Bucket): void {
    if (this.#buckets.size >= this.#maxKeys) {
      // A full bucket carries no information: dropping those first loses nothing.
      for (const [k, b] of this.#buckets)
        if (b.tokens + (this.#now() - b.at) * this.#perMs >= this.#burst) this.#buckets.delete(k);
      if (this.#buckets.size >= this.#maxKeys)
        this.#buckets.delete(this.#buckets.keys().next().value as string);
    }
    this.#buckets.set(key, bucket);
  }
}
