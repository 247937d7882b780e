import type { EventPayload } from "@svc/events";
import type { LookupKey } from "./identifiers/lookup-keys.ts";

export const CANDIDATE_STATUSES = ["active", "merged", "inactive"] as const;
export type CandidateStatus = (typeof CANDIDATE_STATUSES)[number];

export const RESOLUTIONS = ["resolved", "unresolved", "ambiguous"] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/** A candidate identity (spec 2.5): an identity and its merge link, nothing about the person. */
export interface Candidate {
  candidateUuid: string;
  status: CandidateStatus;
  mergedIntoCandidateUuid: string | null;
  createdAt: Date;
  updatedAt: Date | null;
}

/** An application (spec 2.6) plus the links this service keeps beside it. */
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

/** The technical register of one candidate's process for one vacancy (spec 1.3, 4.12). */
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

/** The vacancies service, asked over NATS request/reply. */
export interface VacancyDirectory {
  /** Throws DependencyUnavailableError when the vacancies service cannot answer in time. */
  find(vacancyUuid: string): Promise<VacancyFacts | null>;
}

/** The write side, one database transaction per unit of work. */
export interface IdentityStore {
  /** Runs `work` in one transaction: everything it writes, events included, commits or none does. */
  transaction<T>(work: (tx: IdentityTransaction) => Promise<T>): Promise<T>;
}

export interface IdentityTransaction {
  /** Serialises resolutions that share an identifier, until the transaction ends. */
  lockIdentifiers(keys: LookupKey[]): Promise<void>;
  /** Lookup key (hex) → surviving candidate, following merges, for the keys that are known. */
  survivorsOf(keys: LookupKey[]): Promise<Map<string, string>>;
  insertCandidate(candidate: Candidate): Promise<void>;
  /** Links keys to a candidate; a key already linked (to anyone) is left as it is. */
  linkIdentifiers(candidateUuid: string, keys: LookupKey[], at: Date): Promise<void>;
  /** An application for the vacancy by the survivor or by a candidate merged into it. */
  findApplicationOfSurvivor(
    survivorUuid: string,
    vacancyUuid: string,
  ): Promise<Application | undefined>;
  /** Creates the case for (candidate, vacancy) unless it exists; returns it either way. */
  ensureRecruitmentCase(
    recruitmentCase: RecruitmentCase,
  ): Promise<{ recruitmentCase: RecruitmentCase; created: boolean }>;
  touchRecruitmentCase(recruitmentCaseUuid: string, at: Date): Promise<void>;
  /** Inserts unless (candidate, vacancy) already has one; undefined in that case. */
  insertApplication(application: Application): Promise<Application | undefined>;
  findApplication(candidateUuid: string, vacancyUuid: string): Promise<Application | undefined>;
  /** Sets submitted_at once; undefined when the application is unknown or already submitted. */
  markSubmitted(applicationUuid: string, at: Date): Promise<Date | undefined>;
  submissionOf(applicationUuid: string): Promise<{ submittedAt: Date | null } | undefined>;
  /** The candidate's row, locked for the rest of the transaction. */
  lockCandidate(candidateUuid: string): Promise<Candidate | undefined>;
  /** The end of the candidate's merge chain (itself when not merged). */
  survivorOfCandidate(candidateUuid: string): Promise<string | undefined>;
  markMerged(candidateUuid: string, intoCandidateUuid: string, at: Date): Promise<void>;
  enqueue(events: EventPayload[]): Promise<void>;
}

/** The read side of the API. */
export interface IdentityQueries {
  listCandidates(filter: CandidateFilter): Promise<Page<Candidate>>;
  getCandidate(candidateUuid: string): Promise<Candidate | undefined>;
  listApplications(filter: ApplicationFilter): Promise<Page<Application>>;
  getApplication(applicationUuid: string): Promise<Application | undefined>;
  listRecruitmentCases(
    filter: RecruitmentCaseFilter,
  ): Promise<Page<RecruitmentCaseWithApplications>>;
  getRecruitmentCase(
    recruitmentCaseUuid: string,
  ): Promise<RecruitmentCaseWithApplications | undefined>;
}
