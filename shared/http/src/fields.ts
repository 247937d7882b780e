import type { z } from "zod";

/**
 * The rules every text and date a request carries follows before it reaches a store, written once
 * and used by every operation's schema, so the OpenAPI document states them (as `pattern`) and a
 * value the database would refuse or change is a 422 naming the field, never a 500 or a silent
 * change.
 */

/**
 * Text PostgreSQL stores exactly: no U+0000 (refused in text and jsonb) and no unpaired surrogate
 * (encoded as U+FFFD on the way to a text column, refused in jsonb). With the `u` flag a surrogate
 * pair is one code point outside the class, so only unpaired halves match it. JSON Schema patterns
 * are ECMA-262 expressions, so the document states the same rule.
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what is refused
export const STORABLE_TEXT = /^[^\u0000\uD800-\uDFFF]*$/u;
const STORABLE_MESSAGE = "must not contain U+0000 or an unpaired surrogate";

/** An identifier: storable text without Unicode control characters (C0, DEL and C1: `\p{Cc}`). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
export const IDENTIFIER_TEXT = /^[^\u0000-\u001F\u007F-\u009F\uD800-\uDFFF]*$/u;
const IDENTIFIER_MESSAGE = "must not contain control characters or an unpaired surrogate";

/** Whether a string holds only what STORABLE_TEXT allows. */
export const isStorableText = (value: string): boolean =>
  !value.includes("\u0000") && value.isWellFormed();

/** Whether a string holds only what IDENTIFIER_TEXT allows. */
export const isIdentifierText = (value: string): boolean => IDENTIFIER_TEXT.test(value);

/** Free text stored as received: `schema` plus the storable-text rule (stated in the document). */
export function storableText<T extends z.ZodString>(schema: T): T {
  return schema.regex(STORABLE_TEXT, { message: STORABLE_MESSAGE });
}

/** An identifier stored as received: `schema` plus the identifier rule. */
export function identifierText<T extends z.ZodString>(schema: T): T {
  return schema.regex(IDENTIFIER_TEXT, { message: IDENTIFIER_MESSAGE });
}

/**
 * The calendar days a `YYYY-MM-DD` can name and PostgreSQL stores: years 0001 to 9999 (ISO 8601's
 * year 0000 is not a year PostgreSQL reads), each day existing in its month (29 February only in
 * leap years). The reason it is not one, or undefined.
 */
export function calendarDateProblem(year: number, month: number, day: number): string | undefined {
  if (year < 1 || year > 9999) return "must lie in the years 0001 to 9999";
  const d = new Date(utcMillis(year, month, day));
  const real =
    d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
  return real ? undefined : "is not a real calendar date";
}

/**
 * Milliseconds since the epoch of a UTC date and time, for every year: Date.UTC reads the years 0
 * to 99 as 1900 to 1999.
 */
export function utcMillis(year: number, month: number, day: number, h = 0, m = 0, s = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(h, m, s, 0);
  return d.getTime();
}
