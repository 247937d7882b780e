import { trace } from "@opentelemetry/api";
import { pino, type DestinationStream, type Logger, type LevelWithSilent } from "pino";

export type { Logger };

/**
 * Paths whose values never reach a log line: credentials, tokens, secrets and the personal data
 * an application form carries. pino matches these on every object logged.
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

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...REDACTED_PATHS], censor: "[redacted]" },
      mixin: traceMixin,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination,
  );
}
