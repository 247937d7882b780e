/**
 * Wall-clock DATETIME → ISO 8601 with offset, as @svc/time's localToIso, but fast enough for list
 * pages: localToIso formats through Intl several times per value (~50 µs), which for 200
 * timestamps a page cost more than the rest of the mapping. Offsets change at most once an hour
 * (tzdb has no zone with two changes in one hour), so the offset of each local hour is worked out
 * once with localToIso and reused for every time in that hour; an hour a change falls in, or a
 * skipped (spring) hour, always goes through localToIso itself, so results are identical.
 */
import { localToIso } from "@svc/time";

export type LocalToIso = (local: string | null) => string | null;

const LOCAL = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d+)?$/;
/** Distinct local hours kept; a century of hours is ~876,000, so clear rather than grow unbounded. */
const MAX_HOURS = 100_000;

/** The offset suffix (`+02:00`) every second of the local hour `YYYY-MM-DD HH` has, or null if not uniform. */
function uniformOffset(hour: string, zone: string): string | null {
  const wall = hour.replace(" ", "T");
  const first = localToIso(`${hour}:00:00`, zone);
  const last = localToIso(`${hour}:59:59`, zone);
  // A skipped hour comes back moved forward: its wall clock differs from the input.
  if (first?.slice(0, 19) !== `${wall}:00:00` || last?.slice(0, 19) !== `${wall}:59:59`) return null;
  return first.slice(19) === last.slice(19) ? first.slice(19) : null;
}

export function zonedIso(zone: string): LocalToIso {
  const hours = new Map<string, string | null>();
  return (local) => {
    if (local === null || local === "" || local.startsWith("0000-00-00") || !LOCAL.test(local)) return localToIso(local, zone);
    const hour = `${local.slice(0, 10)} ${local.slice(11, 13)}`;
    let suffix = hours.get(hour);
    if (suffix === undefined) {
      if (hours.size >= MAX_HOURS) hours.clear();
      suffix = uniformOffset(hour, zone);
      hours.set(hour, suffix);
    }
    return suffix === null ? localToIso(local, zone) : `${local.slice(0, 10)}T${local.slice(11, 19)}${suffix}`;
  };
}
