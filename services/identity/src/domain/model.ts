export const CANDIDATE_STATUSES = ["active", "merged", "inactive"] as const;
export type CandidateStatus = (typeof CANDIDATE_STATUSES)[number];

export const RESOLUTIONS = ["resolved", "unresolved", "ambiguous"] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/** A candidate identity: an identity and its merge link, nothing about the person. */
export interface Candidate {
  candidateUuid: string;
  status: CandidateStatus;
  mergedIntoCandidateUuid: string | null;
  createdAt: Date;
  updatedAt: Date | null;
}

/** An application plus the links this service keeps beside it. */
export interface Application {
  applicationUuid: string;
  candidateUuid: string;
  vacancyUuid: string;
  practiceId: string;
  resolution: Resolution;
  consentFlag: boolean;
  entrypointRaw: string | null;
  entrypointCode: string | null;
  recruitmentCaseUuid: string;
  createdAt: Date;
  updatedAt: Date | null;
  submittedAt: Date | null;
}

/** The technical register of one candidate's process for one vacancy (a recruitment case). */
export interface RecruitmentCase {
  recruitmentCaseUuid: string;
  candidateUuid: string;
  vacancyUuid: string;
  practiceId: string;
  createdAt: Date;
  updatedAt: Date | null;
}

export interface RecruitmentCaseWithApplications extends RecruitmentCase {
  /** Oldest first. */
  applicationUuids: string[];
}

export interface Submission {
  applicationUuid: string;
  submittedAt: Date;
}

export interface Page<T> {
  items: T[];
  total: number;
}

export interface PageRequest {
  page: number;
  perPage: number;
}

export interface CandidateFilter extends PageRequest {
  status?: CandidateStatus;
  createdSince?: Date;
}

export interface ApplicationFilter extends PageRequest {
  candidateUuid?: string;
  vacancyUuid?: string;
  practiceId?: string;
  resolution?: Resolution;
  createdSince?: Date;
}

export interface RecruitmentCaseFilter extends PageRequest {
  candidateUuid?: string;
  vacancyUuid?: string;
  practiceId?: string;
  createdSince?: Date;
}

/** The vacancies service's answer about one vacancy; null when it does not exist. */
export interface VacancyFacts {
  practiceId: string | null;
}
