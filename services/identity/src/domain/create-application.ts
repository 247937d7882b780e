import { randomUUID } from "node:crypto";
import { ValidationError } from "@svc/errors";
import { lookupKeysOf, type IdentifierHasher } from "./identifiers/lookup-keys.ts";
import { entrypointCodeOf } from "./entrypoints.ts";
import { eventsAt } from "./events.ts";
import type { IdentityStore, RecordedApplication, VacancyDirectory } from "./ports.ts";

/** What the application form sent, validated (http/application-body.ts) but not yet normalised. */
export interface ApplicationRequest {
  vacancyUuid: string;
  practiceId: string | null;
  email: string | null;
  phone: string | null;
  consent: boolean;
  entrypoint: string | null;
}

export type ApplicationOutcome = RecordedApplication;

export interface CreateApplicationDeps {
  store: IdentityStore;
  vacancies: VacancyDirectory;
  hash: IdentifierHasher;
  now: () => Date;
  publicBaseUrl: string;
}

/**
 * POST /v1/applications: checks the vacancy with the vacancies service (before any database work,
 * so no connection waits on NATS), then resolves the candidate and records application,
 * recruitment case and events in one unit of work (IdentityStore.recordApplication; the rules:
 * README "Identity resolution").
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
  const now = deps.now();
  const event = eventsAt(deps.publicBaseUrl, now);
  const [candidateUuid, recruitmentCaseUuid, applicationUuid] = [
    randomUUID(),
    randomUUID(),
    randomUUID(),
  ];
  return deps.store.recordApplication({
    keys: lookupKeysOf({ email: request.email, phone: request.phone }, deps.hash),
    vacancyUuid: request.vacancyUuid,
    practiceId,
    consent: request.consent,
    entrypointRaw: request.entrypoint,
    entrypointCode: entrypointCodeOf(request.entrypoint),
    now,
    candidateUuid,
    recruitmentCaseUuid,
    applicationUuid,
    events: {
      "candidate.created": event("candidate.created", candidateUuid),
      "recruitment_case.created": event("recruitment_case.created", recruitmentCaseUuid),
      "application.created": event("application.created", applicationUuid),
    },
  });
}
