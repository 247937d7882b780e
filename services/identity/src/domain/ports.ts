import type { EventPayload } from "@svc/events";
import type { LookupKey } from "./identifiers/lookup-keys.ts";
import type {
  Application,
  ApplicationFilter,
  Candidate,
  CandidateFilter,
  Page,
  RecruitmentCaseFilter,
  RecruitmentCaseWithApplications,
  VacancyFacts,
} from "./model.ts";

// The interfaces the domain owns; the adapters in store/ and messaging/ implement them.

/** The vacancies service, asked over NATS request/reply. */
export interface VacancyDirectory {
  /** Throws DependencyUnavailableError when the vacancies service cannot answer in time. */
  find(vacancyUuid: string): Promise<VacancyFacts | null>;
}

/** The write side, one database transaction per unit of work. */
export interface IdentityStore {
  /**
   * Runs `work` in one transaction: everything it writes, events included, commits or none does.
   */
  transaction<T>(work: (tx: IdentityTransaction) => Promise<T>): Promise<T>;
  /**
   * Resolves the candidate and records a new application, its recruitment case and their events
   * as one unit of work (the rules: README "Identity resolution").
   */
  recordApplication(draft: ApplicationDraft): Promise<RecordedApplication>;
}

/** A validated application with everything its unit of work may need decided in advance. */
export interface ApplicationDraft {
  /** Usable identifiers in precedence order (e-mail first). */
  keys: LookupKey[];
  vacancyUuid: string;
  practiceId: string;
  consent: boolean;
  entrypointRaw: string | null;
  entrypointCode: string | null;
  now: Date;
  /** Used only for what is created: a new candidate, case and application. */
  candidateUuid: string;
  recruitmentCaseUuid: string;
  applicationUuid: string;
  /** Each event the unit may emit, by type, for the ids above. */
  events: Record<
    "candidate.created" | "recruitment_case.created" | "application.created",
    EventPayload
  >;
}

export interface RecordedApplication {
  application: Application;
  candidateCreated: boolean;
  applicationCreated: boolean;
}

export interface IdentityTransaction {
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

/** One client's key, as stored. */
export interface IdempotencyRecordId {
  clientId: string;
  keyHash: Buffer;
}

export interface StoredResponse {
  status: number;
  /** The JSON body exactly as first sent. */
  body: string;
}

/** Outcome of trying to take a key for a request. */
export type Reservation =
  | { kind: "reserved" }
  | { kind: "in_progress"; requestHash: Buffer }
  | { kind: "completed"; requestHash: Buffer; response: StoredResponse };

export interface ReserveInput extends IdempotencyRecordId {
  requestHash: Buffer;
  now: Date;
  expiresAt: Date;
  /**
   * Until when this request holds the key; after that a retry of the same request may take over.
   */
  lockedUntil: Date;
}

/** Where the Idempotency-Key middleware's records live, implemented per technology. */
export interface IdempotencyStore {
  /**
   * Takes the key unless another live request holds it or a response is stored for it. An expired
   * record counts as absent; an in-progress record whose lease ran out is taken over by the same
   * request.
   */
  reserve(input: ReserveInput): Promise<Reservation>;
  complete(id: IdempotencyRecordId, response: StoredResponse): Promise<void>;
  /** Forgets the key, so it can be used again (the request failed and nothing was stored). */
  release(id: IdempotencyRecordId): Promise<void>;
  /** Deletes expired records; returns how many. */
  pruneExpired(now: Date): Promise<number>;
}
