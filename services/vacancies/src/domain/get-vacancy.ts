/** GET /v1/vacancies/{uuid} and the existence check other services ask for over NATS. */
import { NotFoundError } from "@svc/errors";
import type { Vacancy } from "./vacancy-catalogue.ts";
import { asOf, type VacancyReader } from "./vacancy-reader.ts";
import type { VacancySource } from "./ports.ts";

/** Soft-deleted vacancies do not exist: 404 like an unknown uuid. */
export async function getVacancy(reader: VacancyReader, uuid: string): Promise<Vacancy> {
  const vacancy = await reader.source.get(uuid, asOf(reader));
  if (!vacancy) throw new NotFoundError("vacancy not found");
  return vacancy;
}

export interface VacancyExistsReply {
  exists: boolean;
  /** The vacancy's practice.legacy_reference; null when it has none or does not exist. */
  practice_id: string | null;
}

export async function vacancyExists(
  source: VacancySource,
  uuid: string,
): Promise<VacancyExistsReply> {
  const link = await source.link(uuid);
  return link
    ? { exists: true, practice_id: link.practiceId }
    : { exists: false, practice_id: null };
}
