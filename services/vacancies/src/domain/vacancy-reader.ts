/**
 * What every vacancy use case reads with. "Today" is the calendar date in the service's zone
 * (Europe/Brussels) from an injected clock: neither the server's zone nor the database's decides
 * whether a vacancy is published.
 */
import { TotalsCache } from "@svc/paging";
import { calendarToday } from "@svc/time";
import type { AsOf, VacancySource } from "./ports.ts";

export interface VacancyReader {
  source: VacancySource;
  /** IANA zone of the primary system: its calendar "today" and its wall-clock DATETIMEs. */
  zone: string;
  /** The zone's calendar date now (YYYY-MM-DD), from the injected clock. */
  today: () => string;
  /** List totals, reused for VACANCY_TOTALS_CACHE_MS at least; see list-vacancies.ts. */
  totals: TotalsCache;
}

/** `now`: milliseconds since the epoch, injected so tests can pin "today". */
export function createVacancyReader(options: {
  source: VacancySource;
  zone: string;
  now: () => number;
  totalsCacheMs: number;
}): VacancyReader {
  return {
    source: options.source,
    zone: options.zone,
    today: calendarToday(options.zone, options.now),
    totals: new TotalsCache({ ttlMs: options.totalsCacheMs, now: options.now }),
  };
}

/** Read once per request, so a count and its page agree even across midnight. */
export function asOf(reader: VacancyReader): AsOf {
  return { today: reader.today() };
}
