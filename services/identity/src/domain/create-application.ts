import { randomUUID } from "node:crypto";
import { ValidationError } from "@svc/errors";
import type { EventPayload } from "@svc/events";
import { lookupKeysOf, type IdentifierHasher, type LookupKey } from "./identifiers/lookup-keys.ts";
import { entrypointCodeOf } from "./entrypoints.ts";
import { eventsAt } from "./events.ts";
import type { Application, Resolution } from "./model.ts";
import type { IdentityStore, IdentityTransaction, VacancyDirectory } from "./ports.ts";
import { decideResolution } from "./resolve-candidate.ts";

/** What the application form sent, validated (http/application-body.ts) but not yet normalised. */
export interface ApplicationRequest {
  vacancyUuid: string;
  practiceId: string | null;
  email: string | null;
  phone: string | null;
  consent: boolean;
  entrypoint: string | null;
}

export interface ApplicationOutcome {
  application: Application;
  candidateCreated: boolean;
  applicationCreated: boolean;
}

export interface CreateApplicationDeps {
  store: IdentityStore;
  vacancies: VacancyDirectory;
  hash: IdentifierHasher;
  now: () => Date;
  publicBaseUrl: string;
}

interface Checked {
  keys: LookupKey[];
  vacancyUuid: string;
  practiceId: string;
  consent: boolean;
  entrypointRaw: string | null;
}

interface Draft extends Checked {
  now: Date;
  event: (type: EventPayload["event_type"], id: string) => EventPayload;
}

/**
 * POST /v1/applications: checks the vacancy with the vacancies service (before any database work,
 * so no connection waits on NATS), resolves the candidate and records application, recruitment
 * case and events in one transaction.
 */
export async function createApplication(
  deps: CreateApplicationDeps,
  request: ApplicationRequest,
): Promise<ApplicationOutcome> {
  const vacancy = await deps.vacancies.find(request.vacancyUuid);
  if (!vacancy)
    throw new ValidationError([
      { field: "vacancy_uuid", message: "no vacancy with this uuid exists" },
    ]);
  const practiceId = request.practiceId ?? vacancy.practiceId;
  if (practiceId === null)
    throw new ValidationError([
      { field: "practice_id", message: "is required because the vacancy names no practice" },
    ]);
  const checked: Checked = {
    keys: lookupKeysOf({ email: request.email, phone: request.phone }, deps.hash),
    vacancyUuid: request.vacancyUuid,
    practiceId,
    consent: request.consent,
    entrypointRaw: request.entrypoint,
  };
  return deps.store.transaction((tx) => recordApplication(tx, checked, deps));
}

async function recordApplication(
  tx: IdentityTransaction,
  checked: Checked,
  deps: CreateApplicationDeps,
): Promise<ApplicationOutcome> {
  await tx.lockIdentifiers(checked.keys);
  // Read once the identifiers are this request's: what follows does not wait for another one, so
  // created_at and the events' occurred_at are the moment of the commit (give or take its writes).
  const now = deps.now();
  const draft: Draft = { ...checked, now, event: eventsAt(deps.publicBaseUrl, now) };
  const decision = decideResolution(draft.keys, await tx.survivorsOf(draft.keys));
  const candidateCreated = decision.candidateUuid === null;
  const candidateUuid = decision.candidateUuid ?? randomUUID();
  if (candidateCreated) {
    await tx.insertCandidate({
      candidateUuid,
      status: "active",
      mergedIntoCandidateUuid: null,
      createdAt: draft.now,
      updatedAt: null,
    });
  }
  await tx.linkIdentifiers(candidateUuid, decision.linkKeys, draft.now);
  if (!candidateCreated) {
    // The same person applying to the same vacancy again gets the existing application (200).
    const existing = await tx.findApplicationOfSurvivor(candidateUuid, draft.vacancyUuid);
    if (existing)
      return { application: existing, candidateCreated: false, applicationCreated: false };
  }
  return insertApplication(tx, draft, {
    candidateUuid,
    resolution: decision.resolution,
    candidateCreated,
  });
}

async function insertApplication(
  tx: IdentityTransaction,
  draft: Draft,
  who: { candidateUuid: string; resolution: Resolution; candidateCreated: boolean },
): Promise<ApplicationOutcome> {
  const { candidateUuid } = who;
  const ensured = await tx.ensureRecruitmentCase({
    recruitmentCaseUuid: randomUUID(),
    candidateUuid,
    vacancyUuid: draft.vacancyUuid,
    practiceId: draft.practiceId,
    createdAt: draft.now,
    updatedAt: null,
  });
  const inserted = await tx.insertApplication({
    applicationUuid: randomUUID(),
    candidateUuid,
    vacancyUuid: draft.vacancyUuid,
    practiceId: draft.practiceId,
    resolution: who.resolution,
    consentFlag: draft.consent,
    entrypointRaw: draft.entrypointRaw,
    entrypointCode: entrypointCodeOf(draft.entrypointRaw),
    recruitmentCaseUuid: ensured.recruitmentCase.recruitmentCaseUuid,
    createdAt: draft.now,
    updatedAt: null,
    submittedAt: null,
  });
  if (!inserted) {
    // A concurrent request for the same candidate and vacancy committed first: answer with its
    // application.
    const existing = await tx.findApplication(candidateUuid, draft.vacancyUuid);
    if (!existing) throw new Error("application vanished after a unique-constraint conflict");
    return { application: existing, candidateCreated: false, applicationCreated: false };
  }
  const events: EventPayload[] = who.candidateCreated
    ? [draft.event("candidate.created", candidateUuid)]
    : [];
  if (ensured.created)
    events.push(
      draft.event("recruitment_case.created", ensured.recruitmentCase.recruitmentCaseUuid),
    );
  else await tx.touchRecruitmentCase(ensured.recruitmentCase.recruitmentCaseUuid, draft.now);
  events.push(draft.event("application.created", inserted.applicationUuid));
  await tx.enqueue(events);
  return {
    application: inserted,
    candidateCreated: who.candidateCreated,
    applicationCreated: true,
  };
}
