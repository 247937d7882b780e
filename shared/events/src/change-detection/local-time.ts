/**
 * Source wall-clock times (`YYYY-MM-DD HH:MM:SS[.ffffff]`, as the legacy DATETIME columns hold
 * them). Arithmetic is naive on purpose: the database compares these values naively too, so the
 * cursor must move in the same space. The one place that breaks, the repeated autumn hour, is
 * handled by capping the cursor at the detector's own local time (see the incremental pass).
 */
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?$/;

export function normalizeLocal(value: string): string {
  if (!LOCAL.test(value)) throw new RangeError(`not a local date-time: ${JSON.stringify(value)}`);
  return value.replace("T", " ");
}

/** The wall-clock time `deltaMs` later (negative: earlier), to whole seconds rounded down. */
export function shiftLocal(local: string, deltaMs: number): string {
  const m = LOCAL.exec(local);
  if (!m) throw new RangeError(`not a local date-time: ${JSON.stringify(local)}`);
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const shifted = new Date(Date.UTC(y, mo - 1, d, h, mi, s) + Math.floor(deltaMs / 1000) * 1000);
  return shifted.toISOString().slice(0, 19).replace("T", " ");
}

export function laterLocal(a: string, b: string): string {
  return a >= b ? a : b;
}

export function earlierLocal(a: string, b: string): string {
  return a <= b ? a : b;
}
