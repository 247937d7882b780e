import { parseQuery, type DateOrInstant } from "@svc/http";
import { instantOfLocal } from "@svc/time";
import type { ApplicationFilter, CandidateFilter, RecruitmentCaseFilter } from "../domain/model.ts";
import {
  listApplicationsOperation,
  listCandidatesOperation,
  listRecruitmentCasesOperation,
} from "./operations.ts";

/**
 * `created_since`: a date means midnight in the configured zone (Europe/Brussels); a date-time is
 * itself. Inclusive.
 */
function sinceOf(value: DateOrInstant | undefined, timeZone: string): Date | undefined {
  if (value === undefined) return undefined;
  return value.kind === "instant"
    ? value.instant
    : new Date(instantOfLocal(`${value.date} 00:00:00`, timeZone));
}

export function candidateFilterOf(query: unknown, timeZone: string): CandidateFilter {
  const p = parseQuery(listCandidatesOperation.query, query);
  return {
    page: p.page,
    perPage: p.per_page,
    status: p.status,
    createdSince: sinceOf(p.created_since, timeZone),
  };
}

export function applicationFilterOf(query: unknown, timeZone: string): ApplicationFilter {
  const p = parseQuery(listApplicationsOperation.query, query);
  return {
    page: p.page,
    perPage: p.per_page,
    candidateUuid: p.candidate_uuid,
    vacancyUuid: p.vacancy_uuid,
    practiceId: p.practice_id,
    resolution: p.resolution,
    createdSince: sinceOf(p.created_since, timeZone),
  };
}

export function recruitmentCaseFilterOf(query: unknown, timeZone: string): RecruitmentCaseFilter {
  const p = parseQuery(listRecruitmentCasesOperation.query, query);
  return {
    page: p.page,
    perPage: p.per_page,
    candidateUuid: p.candidate_uuid,
    vacancyUuid: p.vacancy_uuid,
    practiceId: p.practice_id,
    createdSince: sinceOf(p.created_since, timeZone),
  };
}
