/**
 * Calendar helpers for the legacy storage format: DATE as `YYYY-MM-DD`, DATETIME as
 * `YYYY-MM-DD HH:MM:SS` in Europe/Brussels wall-clock time with no offset stored.
 *
 * The EU summer-time rule is computed here rather than through Intl so the generator's output does
 * not depend on the ICU data of whichever Node runs it (byte-identical data per seed).
 */

const DAY_MS = 86_400_000;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Parses a `YYYY-MM-DD` calendar date to UTC midnight of that date; throws on non-existent dates.
 */
export function parseIsoDate(date: string): number {
  const match = DATE_PATTERN.exec(date);
  if (!match) throw new RangeError(`not a YYYY-MM-DD date: ${JSON.stringify(date)}`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  if (new Date(ms).getUTCDate() !== day || new Date(ms).getUTCMonth() !== month - 1) {
    throw new RangeError(`date does not exist: ${date}`);
  }
  return ms;
}

/** `YYYY-MM-DD` of a UTC-midnight-based millisecond value. */
export function formatIsoDate(utcMs: number): string {
  return new Date(utcMs).toISOString().slice(0, 10);
}

/** Adds whole days to a calendar date. */
export function addDays(date: string, days: number): string {
  return formatIsoDate(parseIsoDate(date) + days * DAY_MS);
}

function lastSundayUtc(year: number, monthIndex: number): number {
  const lastDay = Date.UTC(year, monthIndex + 1, 0);
  return lastDay - new Date(lastDay).getUTCDay() * DAY_MS;
}

/** Offset of Europe/Brussels from UTC in minutes at an instant: +120 in summer time, else +60. */
export function brusselsOffsetMinutes(utcMs: number): number {
  const year = new Date(utcMs).getUTCFullYear();
  // Summer time runs from 01:00 UTC on the last Sunday of March to 01:00 UTC on the last Sunday of
  // October.
  const start = lastSundayUtc(year, 2) + 3_600_000;
  const end = lastSundayUtc(year, 9) + 3_600_000;
  return utcMs >= start && utcMs < end ? 120 : 60;
}

/**
 * The Brussels wall-clock DATETIME (`YYYY-MM-DD HH:MM:SS`) of an instant, as the legacy system
 * stores it.
 */
export function toBrusselsDateTime(utcMs: number): string {
  const local = new Date(utcMs + brusselsOffsetMinutes(utcMs) * 60_000).toISOString();
  return `${local.slice(0, 10)} ${local.slice(11, 19)}`;
}

/** The UTC instant of Brussels noon on a calendar date: a DST-safe anchor for "during that day". */
export function brusselsNoonUtc(date: string): number {
  const utcNoon = parseIsoDate(date) + 12 * 3_600_000;
  return utcNoon - brusselsOffsetMinutes(utcNoon) * 60_000;
}

/** The Europe/Brussels calendar date (`YYYY-MM-DD`) at an instant. */
export function brusselsDate(utcMs: number): string {
  return toBrusselsDateTime(utcMs).slice(0, 10);
}
