import { sleep, waitFor } from "@svc/testing";
import { Recorder, type Sample } from "./load.ts";

export { sleep };

/** waitFor (@svc/testing) that adds `detail()` to its timeout error. */
export function waitUntil<T>(
  what: string,
  check: () => T | false | null | undefined | Promise<T | false | null | undefined>,
  timeoutMs: number,
  detail: () => string = () => "",
  everyMs = 100,
): Promise<T> {
  return waitFor(what, check, timeoutMs, everyMs).catch((err: Error) => {
    const more = detail();
    throw more ? new Error(`${err.message}\n${more}`) : err;
  });
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
