// Helpers of the tests that run against the fake Kubernetes API (./fake-kube-api.ts).

export type LogLine = { level: string; obj: object; msg: string };

type LogFn = (obj: object, msg: string) => void;

/**
 * A pino-shaped logger that keeps every line, so tests can assert on logs (and on what is absent).
 */
export function memoryLogger(): {
  lines: LogLine[];
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
} {
  const lines: LogLine[] = [];
  const at = (level: string) => (obj: object, msg: string) => void lines.push({ level, obj, msg });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
