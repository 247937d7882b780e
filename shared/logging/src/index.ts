import { trace } from "@opentelemetry/api";
import slowRedact from "@pinojs/redact";
import {
  pino,
  type DestinationStream,
  type LevelWithSilent,
  type Logger as PinoLogger,
} from "pino";
import { errorsWithoutValues } from "./error-values.ts";

export { withoutValues } from "./error-values.ts";

/**
 * What code that logs needs of a logger: pino's levels and argument order (merge object first,
 * message second). A logger from createLogger (or its child) is one, and so is a test's logger
 * that keeps its lines; packages that log take this type rather than pino's.
 */
export interface Logger {
  /** Optional: a logger that keeps test lines may leave it out. */
  debug?(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * Paths whose values never reach a log line: credentials, tokens, secrets and the personal data
 * an application form carries, checked on every object logged (see `redacted`).
 */
export const REDACTED_PATHS: ReadonlyArray<string> = [
  "authorization",
  "password",
  "secret",
  "token",
  "access_token",
  "client_secret",
  "email",
  "phone",
  "pepper",
  "*.authorization",
  "*.Authorization",
  "*.cookie",
  "*.password",
  "*.secret",
  "*.token",
  "*.access_token",
  "*.client_secret",
  "*.email",
  "*.phone",
  "*.pepper",
  "*.url_password",
  "req.headers.authorization",
  "req.headers.cookie",
  "headers.authorization",
  "body.candidate",
  "*.candidate",
];

const CENSOR = "[redacted]";

/**
 * REDACTED_PATHS by shape: a top-level name, `*.name` (one level down) or an explicit dotted
 * path. Any other shape would escape the check below, so it stops the process at start.
 */
export function redactionPathShapes(paths: ReadonlyArray<string>) {
  const top = new Set<string>();
  const child = new Set<string>();
  const nested: string[][] = [];
  for (const path of paths) {
    const parts = path.split(".");
    if (
      !parts.every((part) => /^(\*|[A-Za-z_][\w-]*)$/.test(part)) ||
      parts.slice(1).includes("*") ||
      (parts[0] === "*" && parts.length !== 2)
    ) {
      throw new Error(`redaction path of a shape the logger does not check for: ${path}`);
    }
    if (parts.length === 1) top.add(path);
    else if (parts[0] === "*") child.add(parts[1]!);
    else nested.push(parts);
  }
  return { top: [...top], child: [...child], nested };
}

const SHAPES = redactionPathShapes(REDACTED_PATHS);
const redactAll = slowRedact({ paths: [...REDACTED_PATHS], censor: CENSOR, serialize: false });

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object";

/** Whether any redacted path exists in `object` (`in`, so inherited properties count too). */
function holdsRedactedPath(object: Record<string, unknown>): boolean {
  for (const name of SHAPES.top) if (name in object) return true;
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (isObject(value)) for (const name of SHAPES.child) if (name in value) return true;
  }
  return SHAPES.nested.some((parts) => {
    let at: unknown = object;
    for (const part of parts) {
      if (!isObject(at) || !(part in at)) return false;
      at = at[part];
    }
    return true;
  });
}

/**
 * Lines holding none of the paths (every request line), which a few property checks prove, are
 * not passed to @pinojs/redact, which parses every path and clones the object on each call; a line
 * that holds one is redacted by it with the same paths. Why: docs/decisions/logging-cost.md.
 */
function redacted(object: Record<string, unknown>): Record<string, unknown> {
  if (!holdsRedactedPath(object)) return object;
  // Errors serialised first (as pino would after this hook): a cloned Error loses its message and
  // stack. The serialised copy keeps the error's prototype, so pino's own pass still names its
  // type.
  const errors = Object.keys(object).filter((key) => object[key] instanceof Error);
  const plain = { ...object };
  for (const key of errors) plain[key] = pino.stdSerializers.err(object[key] as Error);
  const copy = redactAll(plain) as Record<string, unknown>;
  delete copy.restore;
  for (const key of errors)
    if (isObject(copy[key])) Object.setPrototypeOf(copy[key], Object.getPrototypeOf(object[key]));
  return copy;
}

/**
 * pino's `isoTime` (`,"time":"2026-11-26T09:04:07.123Z"`) without a Date and an ISO formatting per
 * line: the text up to the second is built once a second, the milliseconds are appended. `now` is
 * injectable for tests. Why: docs/decisions/logging-cost.md.
 */
export function isoTimestamp(now: () => number = Date.now): () => string {
  let second = Number.NaN;
  let prefix = "";
  return () => {
    const instant = now();
    const ms = instant % 1000;
    const at = instant - ms;
    if (at !== second) {
      second = at;
      prefix = `,"time":"${new Date(at).toISOString().slice(0, 20)}`;
    }
    return `${prefix}${ms < 10 ? "00" : ms < 100 ? "0" : ""}${ms}Z"`;
  };
}

export interface LoggerOptions {
  service: string;
  level: LevelWithSilent;
  /** Where lines go; stdout by default. Tests pass a stream to read lines back. */
  destination?: DestinationStream;
}

/** Adds the active OpenTelemetry span's ids to every line logged inside a traced operation. */
function traceMixin(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const ctx = span.spanContext();
  return { trace_id: ctx.traceId, span_id: ctx.spanId };
}

export function createLogger(options: LoggerOptions): PinoLogger {
  const logger = pino(
    {
      level: options.level,
      base: { service: options.service },
      timestamp: isoTimestamp(),
      mixin: traceMixin,
      formatters: {
        level: (label) => ({ level: label }),
        // Errors first lose the values they carry (error-values.ts), then the redacted paths.
        log: (object) => redacted(errorsWithoutValues(object)),
        bindings: redacted,
      },
    },
    options.destination,
  );
  // pino applies the bindings formatter to the base only, and a child logger inherits this
  // `child` (children are made with Object.create), so bindings at every depth are redacted too.
  const child = logger.child;
  logger.child = function (this: PinoLogger, bindings, childOptions) {
    return child.call(this, redacted(bindings), childOptions);
  } as PinoLogger["child"];
  return logger;
}

/**
 * Resolves once `logger` has written every line it holds, or after `timeoutMs` (a blocked stdout
 * must not hold a process's exit). Call it before `process.exit`: pino writes asynchronously, and
 * its exit hook writes the queued lines at once while an earlier write may still be under way, so
 * the last lines of a stopping process would land out of order.
 */
export function logsWritten(logger: PinoLogger, timeoutMs = 1_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    logger.flush(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
