/**
 * Kubernetes MicroTime (Lease acquireTime/renewTime, events.k8s.io eventTime): RFC 3339 with
 * exactly six fractional digits. The API server parses it with Go's RFC3339Micro layout, so the
 * three digits of Date#toISOString are rejected; @kubernetes/client-node 2.0.1 hands these fields
 * back as raw strings (V1MicroTime is not in its type map), and may hand back Dates elsewhere.
 *
 * Values are kept as epoch microseconds (a safe integer until the year 2255) so a time written
 * by another client (client-go, with real microseconds) survives a read-modify-write unchanged.
 */
export type EpochMicros = number;

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

/** `2026-11-22T03:58:00.123456Z` → epoch microseconds; accepts Dates (millisecond precision). */
export function parseMicroTime(value: string | Date): EpochMicros {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (Number.isNaN(ms)) throw new RangeError("invalid MicroTime: Invalid Date");
    return ms * 1000;
  }
  const m = RFC3339.exec(value);
  if (!m) throw new RangeError(`invalid MicroTime: ${JSON.stringify(value)}`);
  const [, whole, fraction = "", zone] = m;
  const seconds = Date.parse(`${whole}${zone === "z" ? "Z" : zone}`);
  if (Number.isNaN(seconds)) throw new RangeError(`invalid MicroTime: ${JSON.stringify(value)}`);
  return seconds * 1000 + Number(fraction.padEnd(6, "0").slice(0, 6));
}

/** Epoch microseconds → UTC MicroTime with exactly six fractional digits. */
export function formatMicroTime(micros: EpochMicros): string {
  const wholeMicros = Math.floor(micros);
  const ms = Math.floor(wholeMicros / 1000);
  const subMs = wholeMicros - ms * 1000;
  const iso = new Date(ms).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  return `${iso.slice(0, -1)}${String(subMs).padStart(3, "0")}Z`;
}

/** A Date (or epoch milliseconds) as MicroTime. */
export function microTimeOf(at: Date | number): string {
  return formatMicroTime((typeof at === "number" ? at : at.getTime()) * 1000);
}
