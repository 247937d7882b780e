/** GET /v1/vacancies filters pushed down to the source, one page plus the total. */
import { readListPage, type ListPage } from "@svc/paging";
import { localOfInstant } from "@svc/time";
import type { AllowedOf, Vacancy } from "./vacancy-catalogue.ts";
import { asOf, type VacancyReader } from "./vacancy-reader.ts";
import { listKey, type VacancyFilter } from "./ports.ts";

/** `updated_since` as the client gave it: a calendar date or an instant. */
export type DateOrInstant = { kind: "date"; date: string } | { kind: "instant"; instant: Date };

/** The validated query of GET /v1/vacancies. */
export interface ListQuery {
  page: number;
  per_page: number;
  language?: AllowedOf<"language">;
  province?: string;
  position?: string;
  status?: AllowedOf<"status.value">;
  published?: boolean;
  practice?: string;
  updated_since?: DateOrInstant;
}

/** A page of vacancies; `total`: every vacancy matching the filter (see listVacancies). */
export type ListResult = ListPage<Vacancy>;

/**
 * `updated_since` as the zone's wall clock, the form the source stores: a date means midnight at
 * the start of that day in the zone, an instant is converted with the zone's offset at that
 * instant. Sub-seconds are truncated, so a change within the given second is included.
 */
export function updatedSinceLocal(since: DateOrInstant, zone: string): string {
  return since.kind === "date"
    ? `${since.date} 00:00:00`
    : localOfInstant(since.instant.getTime(), zone);
}

function filterOf(query: ListQuery, zone: string): VacancyFilter {
  const { page: _page, per_page: _perPage, updated_since: since, ...rest } = query;
  return since === undefined
    ? rest
    : { ...rest, updatedSinceLocal: updatedSinceLocal(since, zone) };
}

/**
 * One page, read fresh, and its total (@svc/paging readListPage): exact when the page is not full,
 * otherwise the COUNT for the same filters and day, reused for VACANCY_TOTALS_CACHE_MS or ten times
 * as long as it took (so it may lag a change by that long). A count the cache does not hold runs
 * beside the page query, not after it.
 */
export function listVacancies(reader: VacancyReader, query: ListQuery): Promise<ListResult> {
  const filter = filterOf(query, reader.zone);
  const today = asOf(reader);
  return readListPage(
    reader.totals,
    { page: query.page, perPage: query.per_page, countBesidePage: true },
    {
      key: listKey(filter, today),
      read: (window) => reader.source.page(filter, today, window),
      count: () => reader.source.count(filter, today),
    },
  );
}
