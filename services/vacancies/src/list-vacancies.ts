/** GET /v1/vacancies (spec 4.3): filters pushed down to the source, one page plus the total. */
import type { DateOrInstant } from "@svc/http";
import { localOfInstant } from "@svc/time";
import type { AllowedOf } from "./vacancy-catalogue.ts";
import { asOf, type VacancyReader } from "./vacancy-reader.ts";
import type { VacancyFilter, VacancyPage } from "./vacancy-source.ts";

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

export interface ListResult extends VacancyPage {
  page: number;
  perPage: number;
}

/**
 * `updated_since` as the zone's wall clock, the form the source stores: a date means midnight at
 * the start of that day in the zone, an instant is converted with the zone's offset at that
 * instant. Sub-seconds are truncated, so a change within the given second is included.
 */
export function updatedSinceLocal(since: DateOrInstant, zone: string): string {
  return since.kind === "date" ? `${since.date} 00:00:00` : localOfInstant(since.instant.getTime(), zone);
}

function filterOf(query: ListQuery, zone: string): VacancyFilter {
  const { page: _page, per_page: _perPage, updated_since: since, ...rest } = query;
  return since === undefined ? rest : { ...rest, updatedSinceLocal: updatedSinceLocal(since, zone) };
}

export async function listVacancies(reader: VacancyReader, query: ListQuery): Promise<ListResult> {
  const page = { offset: (query.page - 1) * query.per_page, limit: query.per_page };
  const found = await reader.source.list(filterOf(query, reader.zone), asOf(reader), page);
  return { ...found, page: query.page, perPage: query.per_page };
}
