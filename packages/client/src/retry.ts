/** When to retry an answer, and how long to wait first. */

export type RetryOptions = {
  /** Retries after the first attempt (default 3); 0 turns retrying off. */
  retries?: number;
  /** Longest wait before one retry (default 30 s); a longer `Retry-After` is not waited for. */
  maxDelayMs?: number;
  /** The wait without `Retry-After`: this, doubled per retry (default 500 ms). */
  baseDelayMs?: number;
};

/** Statuses worth the same request again: the service asked to wait (503, 429, busy 409). */
export function retryable(status: number, code: string | undefined): boolean {
  return status === 503 || status === 429 || code === "IDEMPOTENT_REQUEST_IN_PROGRESS";
}

/**
 * The wait before retry number `retry` (from 0): `Retry-After` when given, else exponential
 * backoff, plus up to 20 % random jitter so many clients do not return at once; null when it
 * exceeds the bound.
 */
export function retryDelayMs(
  retry: number,
  retryAfter: number | null,
  options: RetryOptions,
): number | null {
  const base = retryAfter !== null ? retryAfter * 1000 : (options.baseDelayMs ?? 500) * 2 ** retry;
  const delay = base + Math.random() * Math.max(0.2 * base, 100);
  return base > (options.maxDelayMs ?? 30_000) ? null : Math.round(delay);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    }
    signal?.addEventListener("abort", abort, { once: true });
  });
}
