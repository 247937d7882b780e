/**
 * Waits `ms`, or less when `signal` aborts; never rejects, so loops simply re-check their state.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** `ms` stretched by up to `factor` (client-go's wait.Jitter): candidates spread their attempts. */
export function jittered(ms: number, factor = 0.2): number {
  return Math.round(ms * (1 + Math.random() * factor));
}
