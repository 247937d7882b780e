import { Recorder, type Sample } from "./load.ts";

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls until `check` returns a truthy value; fails naming `what` (and `detail()`) after
 * `timeoutMs`.
 */
export async function waitUntil<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs: number,
  detail: () => string = () => "",
  everyMs = 100,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${detail() ? `\n${detail()}` : ""}`,
      );
    await sleep(everyMs);
  }
}

export const ok = (s: Sample) => s.status >= 200 && s.status < 300;
export const latency = (s: Sample) => s.end - s.start;

/** What a window of samples looked like, for assertion messages and the report. */
export function describeSamples(samples: Sample[]): string {
  if (samples.length === 0) return "no requests";
  const slowest = Math.max(...samples.map(latency));
  return `${samples.length} requests, slowest ${slowest} ms: ${JSON.stringify(Recorder.tally(samples))}`;
}

/**
 * Waits until `target` answers 2xx to a request started after `since`, then watches it for
 * `stableMs`: recovered means every later request succeeds too (`flaps` lists those that did not).
 */
export async function recovered(
  recorder: Recorder,
  target: string,
  since: number,
  timeoutMs: number,
  stableMs = 1_000,
): Promise<{ firstOk: number; flaps: Sample[] }> {
  const firstOk = await waitUntil(
    `${target} to answer 2xx again`,
    () => recorder.samples.find((s) => s.target === target && s.start >= since && ok(s))?.start,
    timeoutMs,
    () => `since then: ${describeSamples(recorder.between(target, since, Date.now()))}`,
  );
  await sleep(stableMs);
  return { firstOk, flaps: recorder.between(target, firstOk, Date.now()).filter((s) => !ok(s)) };
}
