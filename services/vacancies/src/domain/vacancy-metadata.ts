/** GET /v1/meta/vacancies: the field catalogue plus the live reference lists. */
import { metadataResource } from "@svc/catalogue";
import { occurredAtFor } from "@svc/events";
import { VACANCY_FIELDS, VACANCY_OBSERVED_VALUES, VACANCY_RESOURCE } from "./vacancy-catalogue.ts";
import type { VacancyReader } from "./vacancy-reader.ts";

export async function vacancyMetadata(reader: VacancyReader) {
  // Read on every request, not cached: the lists are tiny and an entry may be deactivated any day.
  const lists = await reader.source.referenceLists();
  return metadataResource(VACANCY_RESOURCE, VACANCY_FIELDS, {
    referenceLists: {
      positions: { used_by: "position.code", entries: lists.positions },
      provinces: { used_by: "location.province.code", entries: lists.provinces },
    },
    observedValues: VACANCY_OBSERVED_VALUES,
    events: occurredAtFor("vacancy"),
  });
}
