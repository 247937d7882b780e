/**
 * Errors lose the values they carry before they are logged: a database error names the record's
 * values in its detail (`Key (crm_id)=(…) already exists`), its context, its message
 * (`invalid input syntax for type date: "…"`) and, from a query builder, the statement's
 * parameters. A log line keeps what says what went wrong (type, SQLSTATE, table, column,
 * constraint, routine, the statement's text) and never what was stored.
 */

/** Fields that carry values: PostgreSQL's detail and context, a builder's parameters, MySQL's statement. */
const VALUE_FIELDS = new Set(["detail", "where", "internalQuery", "params", "parameters", "sql"]);

const REDACTED = "[redacted]";

/** A database error: PostgreSQL's (severity and SQLSTATE code) or MySQL's (sqlState). */
function fromDatabase(err: Error): boolean {
  const e = err as Error & { severity?: unknown; code?: unknown; sqlState?: unknown };
  return (
    (typeof e.severity === "string" &&
      typeof e.code === "string" &&
      /^[0-9A-Z]{5}$/.test(e.code)) ||
    typeof e.sqlState === "string"
  );
}

function safeMessage(err: Error): string {
  let message = err.message;
  // drizzle-orm: `Failed query: <statement>\nparams: <values>`.
  if ("params" in err) message = message.replace(/\nparams:[\s\S]*$/, "");
  if (!fromDatabase(err)) return message;
  // Both databases quote the value they refused ("…" in PostgreSQL, '…' in MySQL); the names the
  // error carries apart (relation, column, constraint) are no values and stay.
  const e = err as unknown as Record<string, unknown>;
  const names = new Set(
    ["schema", "table", "column", "constraint", "dataType"].map((k) => e[k]).filter(Boolean),
  );
  return message.replace(/"([^"]*)"|'([^']*)'/g, (quoted, a?: string, b?: string) =>
    names.has(a ?? b) ? quoted : `"${REDACTED}"`,
  );
}

function holdsValues(err: Error, depth: number): boolean {
  if (depth > 8) return false;
  if (fromDatabase(err) || "params" in err) return true;
  if (Object.keys(err).some((key) => VALUE_FIELDS.has(key))) return true;
  return err.cause instanceof Error && holdsValues(err.cause, depth + 1);
}

function sanitise(err: Error, depth: number): Error {
  if (!holdsValues(err, depth)) return err;
  const copy = Object.create(Object.getPrototypeOf(err) as object) as Error;
  for (const key of Object.keys(err)) {
    if (VALUE_FIELDS.has(key) || key === "message" || key === "cause") continue;
    (copy as unknown as Record<string, unknown>)[key] = (err as unknown as Record<string, unknown>)[
      key
    ];
  }
  const message = safeMessage(err);
  const stackFrames = (err.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line));
  const name = err.name;
  Object.defineProperty(copy, "message", { value: message, enumerable: false });
  Object.defineProperty(copy, "name", { value: name, enumerable: false });
  Object.defineProperty(copy, "stack", {
    value: [`${name}: ${message}`, ...stackFrames].join("\n"),
    enumerable: false,
  });
  if (err.cause !== undefined)
    Object.defineProperty(copy, "cause", {
      value: err.cause instanceof Error ? sanitise(err.cause, depth + 1) : REDACTED,
      enumerable: false,
    });
  return copy;
}

/** The error as it may be logged: itself when it carries no values, else a copy without them. */
export function withoutValues(err: Error): Error {
  return sanitise(err, 0);
}

/** A log object whose top-level errors carry no values (the same object when none do). */
export function errorsWithoutValues(object: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (!(value instanceof Error)) continue;
    const safe = withoutValues(value);
    if (safe !== value) (copy ??= { ...object })[key] = safe;
  }
  return copy ?? object;
}
