import { z } from "zod";
import { parseQuery, q, type DateOrInstant } from "@svc/http";
import { instantOfLocal } from "@svc/time";
import { CANDIDATE_STATUSES, RESOLUTIONS, type ApplicationFilter, type CandidateFilter, type RecruitmentCaseFilter } from "../domain/model.ts";
import { UUID_SHAPE } from "./validation.ts";

const uuid = () => z.string().regex(UUID_SHAPE, { message: "must be a UUID" });

/** `created_since`: a date means midnight in the configured zone (Europe/Brussels); a date-time is itself. Inclusive. */
function sinceOf(value: DateOrInstant | undefined, timeZone: string): Date | undefined {
  if (value === undefined) return undefined;
  return value.kind === "instant" ? value.instant : new Date(instantOfLocal(`${value.date} 00:00:00`, timeZone));
}

export function candidateFilterOf(query: unknown, timeZone: string): CandidateFilter {
  const p = parseQuery(
    { page: q.page(), per_page: q.perPage(), status: q.oneOf(CANDIDATE_STATUSES).optional(), created_since: q.dateOrDateTime().optional() },
    query,
  );
  return { page: p.page, perPage: p.per_page, status: p.status, createdSince: sinceOf(p.created_since, timeZone) };
}

export function applicationFilterOf(query: unknown, timeZone: string): ApplicationFilter {
  const p = parseQuery(
    {
      page: q.page(),
      per_page: q.perPage(),
      candidate_uuid: uuid().optional(),
      vacancy_uuid: uuid().optional(),
      practice_id: q.text(100).optional(),
      resolution: q.oneOf(RESOLUTIONS).optional(),
      created_since: q.dateOrDateTime().optional(),
    },
    query,
  );
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
  const p = parseQuery(
    {
      page: q.page(),
      per_page: q.perPage(),
      candidate_uuid: uuid().optional(),
      vacancy_uuid: uuid().optional(),
      practice_id: q.text(100).optional(),
      created_since: q.dateOrDateTime().optional(),
    },
    query,
  );
  return {
    page: p.page,
    perPage: p.per_page,
    candidateUuid: p.candidate_uuid,
    vacancyUuid: p.vacancy_uuid,
    practiceId: p.practice_id,
    createdSince: sinceOf(p.created_since, timeZone),
  };
}
