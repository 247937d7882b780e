import { isoWithOffset } from "@svc/events";
import type { ApplicationOutcome } from "../domain/create-application.ts";
import type {
  Application,
  Candidate,
  RecruitmentCaseWithApplications,
  Submission,
} from "../domain/model.ts";

// Domain → response mappers: exactly the contract's fields, never a row as is.
// Instants are ISO 8601 in UTC with an explicit offset and milliseconds, like event occurred_at.

const iso = (d: Date | null): string | null => (d === null ? null : isoWithOffset(d));

export function candidateResource(c: Candidate) {
  return {
    candidate_uuid: c.candidateUuid,
    status: c.status,
    merged_into_candidate_uuid: c.mergedIntoCandidateUuid,
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
  };
}

function applicationFields(a: Application) {
  return {
    application_uuid: a.applicationUuid,
    candidate_uuid: a.candidateUuid,
    vacancy_uuid: a.vacancyUuid,
    practice_id: a.practiceId,
    resolution: a.resolution,
    consent_flag: a.consentFlag,
    entrypoint_raw: a.entrypointRaw,
    entrypoint_code: a.entrypointCode,
    created_at: iso(a.createdAt),
  };
}

/** List items and the single-application read. */
export function applicationResource(a: Application) {
  return { ...applicationFields(a), updated_at: iso(a.updatedAt) };
}

/** The create response: the fields without updated_at, plus the two outcome flags. */
export function applicationCreateResponse(outcome: ApplicationOutcome) {
  return {
    ...applicationFields(outcome.application),
    candidate_created: outcome.candidateCreated,
    application_created: outcome.applicationCreated,
  };
}

export function recruitmentCaseResource(rc: RecruitmentCaseWithApplications) {
  return {
    recruitment_case_uuid: rc.recruitmentCaseUuid,
    candidate_uuid: rc.candidateUuid,
    vacancy_uuid: rc.vacancyUuid,
    practice_id: rc.practiceId,
    application_uuids: rc.applicationUuids,
    created_at: iso(rc.createdAt),
    updated_at: iso(rc.updatedAt),
  };
}

export function submissionResource(s: Submission) {
  return { application_uuid: s.applicationUuid, submitted_at: iso(s.submittedAt) };
}
