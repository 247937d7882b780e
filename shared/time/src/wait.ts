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

/**
 * Exponential backoff with jitter: min·2^(failures-1), capped at max, then scaled to 50–100 %
 * so replicas that failed together (a dependency went away) do not retry in lockstep.
 */
export function backoffMs(failures: number, minMs: number, maxMs: number): number {
  const ceiling = Math.min(maxMs, minMs * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling * (0.5 + Math.random() / 2));
}

/** `ms` stretched by up to `factor` (client-go's wait.Jitter): candidates spread their attempts. */
export function jittered(ms: number, factor = 0.2): number {
  return Math.round(ms * (1 + Math.random() * factor));
}

/**
 * `work`'s value, or undefined when it fails or takes longer than `timeoutMs`: for work whose
 * caller must not hang on an unreachable dependency (a metrics scrape's callback), and would
 * rather have nothing this time than wait.
 */
export async function bounded<T>(work: Promise<T>, timeoutMs: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>(
    (resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)),
  );
  try {
    return await Promise.race([work.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
