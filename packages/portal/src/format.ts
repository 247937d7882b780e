// Presentation helpers shared by the views.

// One formatter for every time shown: building one per call (what `toLocaleString` with options
// does) costs more than the rest of rendering the delivery log.
const TIME = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "short",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});

/** An instant as the reader's local date and time, seconds included. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "–";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return TIME.format(date);
}

/** A `datetime-local` input's value (local time) as an RFC 3339 instant with offset. */
export function localInputToInstant(value: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** The local `datetime-local` value of an instant (minutes precision). */
export function instantToLocalInput(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(
    date.getHours(),
  )}:${pad(date.getMinutes())}`;
}

/** Response samples are shown as text, capped: never parsed as HTML. */
export const SAMPLE_LIMIT = 512;
export function sampleText(sample: string | null): string {
  if (sample === null || sample === "") return "(empty)";
  return sample.length > SAMPLE_LIMIT ? `${sample.slice(0, SAMPLE_LIMIT)}…` : sample;
}

export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
