/**
 * Wall-clock DATETIME → ISO 8601 with offset, exactly as @svc/time's localToIso, without its Intl
 * formatting per value. Offsets change at most once an hour (no tzdb zone changes twice in one),
 * so a day whose 25 hour boundaries (00:00 to 24:00) all have one offset has it for every second:
 * that offset is worked out once per day. The hours of a day with a change are cached the same
 * way; an hour a change falls in, or a skipped (spring) hour, always goes through localToIso.
 * Why per day: docs/decisions/zoned-time-cache.md.
 */
import { localToIso } from "@svc/time";

export type LocalToIso = (local: string | null) => string | null;

const LOCAL = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d+)?$/;
/** Distinct local days (or hours of changing days) kept; clear rather than grow unbounded. */
const MAX_ENTRIES = 50_000;

const pad = (n: number) => String(n).padStart(2, "0");

/** The offset suffix (`+02:00`) of an existing local wall-clock time; null if the zone skips it. */
function offsetAt(local: string, zone: string): string | null {
  const iso = localToIso(local, zone);
  // A skipped time comes back moved forward: its wall clock differs from the input.
  return iso?.slice(0, 19) === local.replace(" ", "T") ? iso.slice(19) : null;
}

/** The offset suffix every second of the local hour `YYYY-MM-DD HH` has, or null if not uniform. */
function uniformHour(hour: string, zone: string): string | null {
  const first = offsetAt(`${hour}:00:00`, zone);
  return first !== null && first === offsetAt(`${hour}:59:59`, zone) ? first : null;
}

/** The offset suffix of every second of the local day `YYYY-MM-DD`; null if it changes that day. */
function uniformDay(day: string, zone: string): string | null {
  const first = offsetAt(`${day} 00:00:00`, zone);
  if (first === null) return null;
  for (let h = 1; h < 24; h++) if (offsetAt(`${day} ${pad(h)}:00:00`, zone) !== first) return null;
  return offsetAt(`${day} 23:59:59`, zone) === first ? first : null;
}

function cached(
  map: Map<string, string | null>,
  key: string,
  compute: (key: string) => string | null,
): string | null {
  let value = map.get(key);
  if (value === undefined) {
    if (map.size >= MAX_ENTRIES) map.clear();
    value = compute(key);
    map.set(key, value);
  }
  return value;
}

export function zonedIso(zone: string): LocalToIso {
  const days = new Map<string, string | null>();
  const hours = new Map<string, string | null>();
  const ofDay = (day: string) => uniformDay(day, zone);
  const ofHour = (hour: string) => uniformHour(hour, zone);
  return (local) => {
    if (local === null || local === "" || local.startsWith("0000-00-00") || !LOCAL.test(local))
      return localToIso(local, zone);
    const day = local.slice(0, 10);
    const suffix =
      cached(days, day, ofDay) ?? cached(hours, `${day} ${local.slice(11, 13)}`, ofHour);
    return suffix === null ? localToIso(local, zone) : `${day}T${local.slice(11, 19)}${suffix}`;
  };
}
