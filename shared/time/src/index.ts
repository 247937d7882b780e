/**
 * Wall-clock time in a named zone, from the zone rules of the runtime's ICU data (so daylight
 * saving changes are exact, whatever the server's or the database's own zone).
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-CA", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Throws a RangeError for a zone the runtime does not know (checked once at config time). */
export function assertTimeZone(zone: string): string {
  formatterFor(zone);
  return zone;
}

/** Year, month (1-12), day, hour, minute, second. */
type DateTimeParts = [number, number, number, number, number, number];

function wallClockParts(instantMs: number, zone: string): DateTimeParts {
  const parts = Object.fromEntries(
    formatterFor(zone)
      .formatToParts(instantMs)
      .map((p) => [p.type, p.value]),
  );
  return [parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second].map(
    Number,
  ) as DateTimeParts;
}

/** The zone's offset from UTC, in minutes, at an instant. */
export function offsetMinutes(instantMs: number, zone: string): number {
  const [y, mo, d, h, mi, s] = wallClockParts(instantMs, zone);
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  return Math.round((asUtc - Math.floor(instantMs / 1000) * 1000) / 60_000);
}

/** The calendar date (YYYY-MM-DD) in the zone at an instant: "today" for publication rules. */
export function dateIn(zone: string, instantMs: number): string {
  const [y, mo, d] = wallClockParts(instantMs, zone);
  return `${String(y).padStart(4, "0")}-${String(mo).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

/**
 * "Today" in the zone by the clock `now`: the calendar date (YYYY-MM-DD), formatted at most once
 * per clock second (Intl formatting costs, and a list request asks for it on every call).
 */
export function calendarToday(zone: string, now: () => number): () => string {
  let second = Number.NaN;
  let date = "";
  return () => {
    const instant = now();
    if (Math.floor(instant / 1000) !== second) {
      second = Math.floor(instant / 1000);
      date = dateIn(zone, instant);
    }
    return date;
  };
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?$/;

/**
 * The instant a wall-clock time in the zone denotes. In the repeated autumn hour the earlier
 * (summer-time) instant is taken; a time inside the spring gap is moved forward by the gap,
 * as Temporal's `compatible` disambiguation does.
 */
export function instantOfLocal(local: string, zone: string): number {
  const m = LOCAL.exec(local);
  if (!m) throw new RangeError(`not a local date-time: ${local}`);
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as DateTimeParts;
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  // Offsets a few hours either side cover every zone transition; try the earlier (larger) offset
  // first.
  const candidates = [
    ...new Set([
      offsetMinutes(asUtc - 3 * 3_600_000, zone),
      offsetMinutes(asUtc + 3 * 3_600_000, zone),
    ]),
  ].sort((a, b) => b - a);
  for (const offset of candidates) {
    const instant = asUtc - offset * 60_000;
    if (offsetMinutes(instant, zone) === offset) return instant;
  }
  // In the gap: no offset fits; shift by the earlier offset (forward in wall-clock time).
  return asUtc - (candidates[candidates.length - 1] as number) * 60_000;
}

function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/** ISO 8601 with the zone's offset at that instant, e.g. `2024-03-31T03:30:00+02:00`. */
export function isoInZone(instantMs: number, zone: string): string {
  const [y, mo, d, h, mi, s] = wallClockParts(instantMs, zone);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${y}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}${formatOffset(offsetMinutes(instantMs, zone))}`;
}

/** A stored wall-clock DATETIME string → ISO 8601 with offset (null stays null). */
export function localToIso(local: string | null, zone: string): string | null {
  if (local === null || local === "" || local.startsWith("0000-00-00")) return null;
  return isoInZone(instantOfLocal(local, zone), zone);
}

/**
 * An instant → the zone's wall-clock DATETIME string (for SQL comparisons against local columns).
 */
export function localOfInstant(instantMs: number, zone: string): string {
  return isoInZone(instantMs, zone).slice(0, 19).replace("T", " ");
}

export { backoffMs, bounded, jittered, sleep } from "./wait.ts";
