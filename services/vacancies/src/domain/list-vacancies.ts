/** GET /v1/vacancies filters pushed down to the source, one page plus the total. */
import type { DateOrInstant } from "@svc/http";
import { pageTotal, totalFromPage } from "@svc/paging";
import { localOfInstant } from "@svc/time";
import type { AllowedOf, Vacancy } from "./vacancy-catalogue.ts";
import { asOf, type VacancyReader } from "./vacancy-reader.ts";
import { listKey, type VacancyFilter } from "./ports.ts";

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

export interface ListResult {
  items: Vacancy[];
  /** Every vacancy matching the filter (see listVacancies for how fresh). */
  total: number;
  page: number;
  perPage: number;
}

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
 * The page is always read fresh. Its total is exact when the page is not full (it ends the list);
 * otherwise it is the COUNT for the same filters and day, reused for VACANCY_TOTALS_CACHE_MS or
 * ten times as long as it took (so it may lag a change by that long; @svc/paging RefreshingCache),
 * and never fewer than the rows up to this page's end. A count the cache does not hold runs
 * beside the page query, not after it.
 */
export async function listVacancies(reader: VacancyReader, query: ListQuery): Promise<ListResult> {
  const window = { offset: (query.page - 1) * query.per_page, limit: query.per_page };
  const filter = filterOf(query, reader.zone);
  const today = asOf(reader);
  const counted = reader.totals.get(listKey(filter, today), () =>
    reader.source.count(filter, today),
  );
  // Not awaited when the page proves the total (or the page fails): its failure is not this
  // request's.
  counted.catch(() => undefined);
  const items = await reader.source.page(filter, today, window);
  const total =
    totalFromPage(items.length, window.offset, window.limit) ??
    pageTotal(items.length, window.offset, window.limit, await counted);
  return { items, total, page: query.page, perPage: query.per_page };
}
