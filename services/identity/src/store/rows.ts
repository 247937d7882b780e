import type { applications, candidates, recruitmentCases } from "./schema.ts";
import type { Application, Candidate, RecruitmentCase } from "../domain/model.ts";

// Row → domain mappers: the one place that knows column names (explicit, so a column added to a
// table never leaks into a response by accident).

export function toCandidate(row: typeof candidates.$inferSelect): Candidate {
  return {
    candidateUuid: row.candidateUuid,
    status: row.status,
    mergedIntoCandidateUuid: row.mergedIntoCandidateUuid,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function toApplication(row: typeof applications.$inferSelect): Application {
  return {
    applicationUuid: row.applicationUuid,
    candidateUuid: row.candidateUuid,
    vacancyUuid: row.vacancyUuid,
    practiceId: row.practiceId,
    resolution: row.resolution,
    consentFlag: row.consentFlag,
    entrypointRaw: row.entrypointRaw,
    entrypointCode: row.entrypointCode,
    recruitmentCaseUuid: row.recruitmentCaseUuid,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    submittedAt: row.submittedAt,
  };
}

export function toRecruitmentCase(row: typeof recruitmentCases.$inferSelect): RecruitmentCase {
  return {
    recruitmentCaseUuid: row.recruitmentCaseUuid,
    candidateUuid: row.candidateUuid,
    vacancyUuid: row.vacancyUuid,
    practiceId: row.practiceId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
