/** Polling for tests: the one `sleep` and `waitFor` every suite uses. */

type Falsy = false | 0 | "" | null | undefined;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` every `everyMs` until it returns a truthy value, and returns that value; fails
 * naming `what` after `timeoutMs`.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | Falsy | Promise<T | Falsy>,
  timeoutMs = 10_000,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as T;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
