import type { Logger } from "@svc/logging";

export type LogEntry = { level: "debug" | "info" | "warn" | "error"; obj: object; msg: string };

/** A logger that keeps every line it is given, so tests can assert on logs (and on what is absent). */
export function recordingLogger(): Required<Logger> & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry["level"]) => (obj: object, msg?: string) =>
    void entries.push({ level, obj, msg: msg ?? "" });
  return { entries, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
