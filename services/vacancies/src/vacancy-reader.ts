/**
 * What every vacancy use case reads with. "Today" is the calendar date in the service's zone
 * (Europe/Brussels) from an injected clock: neither the server's zone nor the database's decides
 * whether a vacancy is published.
 */
import { dateIn } from "@svc/time";
import type { AsOf, VacancySource } from "./vacancy-source.ts";

export interface VacancyReader {
  source: VacancySource;
  /** IANA zone of the primary system: its calendar "today" and its wall-clock DATETIMEs. */
  zone: string;
  /** Milliseconds since the epoch; injected so tests can pin "today". */
  now: () => number;
}

/** Read once per request, so a count and its page agree even across midnight. */
export function asOf(reader: VacancyReader): AsOf {
  return { today: dateIn(reader.zone, reader.now()) };
}
