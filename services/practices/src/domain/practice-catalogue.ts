/**
 * The practice field catalogue: the one description the responses, the metadata endpoint and the
 * conformance tests follow. Order = response order.
 */
import { metadataResource, type FieldSpec } from "@svc/catalogue";
import { occurredAtFor } from "@svc/events";
import type { PracticeSource } from "./ports.ts";
import { PRACTICE_WARNINGS } from "./practice.ts";

const SECONDARY_NULL = "Always null for a secondary-source practice.";
const NO_CRM_ROW = "Null when the practice has no CRM record (warning `source_record_missing`).";

const WARNING_MEANING: Record<(typeof PRACTICE_WARNINGS)[number], string> = {
  multiple_active_rows:
    "more than one active primary row for this practice; single-valued fields come from one of them",
  source_record_missing: "no CRM source row: address, VAT, contact and geo are unknown",
};

export const PRACTICE_FIELDS: ReadonlyArray<FieldSpec> = [
  {
    path: "practice_id",
    type: "string",
    nullable: false,
    kind: "identifier",
    source: "crm_via_primary",
    description:
      "The CRM reference; opaque (not a UUID field): formats differ per source, e.g. `ACC/2009/117` or `OUD 0042` (percent-encode it in a path). When an id exists in both sources, the primary-system practice wins. Lists are ordered by this id, compared as bytes.",
    example: "f1c7a000-0000-4000-8000-000000000002",
  },
  {
    path: "name",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "crm_via_primary",
    description:
      "Name from the CRM record; for a primary-system practice, the primary copy when the CRM name is missing or empty. The `search` filter matches this value exactly: case-, accent- and space-sensitive, no fuzzy matching.",
    example: "Tandartspraktijk Vermeulen",
  },
  {
    path: "alias",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "crm_via_primary",
    description: `Short or trade name. ${NO_CRM_ROW}`,
    example: "TP Vermeulen",
  },
  {
    path: "active",
    type: "boolean",
    nullable: false,
    kind: "derived",
    source: "svc_derived",
    description:
      "Primary-system practice: active in the primary system and visible. Secondary-source practice: today (the calendar date in Europe/Brussels) lies within period.start_date and period.stop_date, both inclusive; a missing bound is open.",
    example: true,
  },
  {
    path: "visible",
    type: "boolean",
    nullable: false,
    kind: "boolean",
    source: "primary",
    description: "Visible in the primary system; a secondary-source practice is always visible.",
    example: true,
  },
  {
    path: "language",
    type: "string",
    nullable: true,
    kind: "enum",
    source: "primary",
    description:
      "ISO 639-1 language of the practice (for a secondary-source practice, of its CRM record); any other source value, also `NL` or `nl-BE`, becomes null.",
    allowedValues: [
      { value: "nl", description: "Dutch" },
      { value: "fr", description: "French" },
    ],
    example: "nl",
  },
  {
    path: "organisation_type",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "crm_via_primary",
    description: `Passed through unchanged (the empty string too); no validation, no fixed set; not the same as vacancy \`practice.type\`. ${NO_CRM_ROW}`,
    example: "Groepspraktijk",
  },
  {
    path: "period.start_date",
    type: "string",
    nullable: true,
    kind: "date",
    source: "crm_via_primary",
    description: `Start date. ${NO_CRM_ROW}`,
    example: "2015-01-01",
  },
  {
    path: "period.stop_date",
    type: "string",
    nullable: true,
    kind: "date",
    source: "crm_via_primary",
    description: `Stop date; \`2999-12-31\` means open-ended and is passed through unchanged; a past date means stopped. ${NO_CRM_ROW}`,
    example: "2999-12-31",
  },
  {
    path: "identifiers.vat",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "crm_via_primary",
    description: `VAT number as in the source, no format validation, often missing. ${NO_CRM_ROW}`,
    example: "BE0412.345.678",
  },
  {
    path: "address.street",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "crm_via_primary",
    description: `Street and number. ${NO_CRM_ROW}`,
    example: "Kortrijksesteenweg 112",
  },
  {
    path: "address.postal_code",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "crm_via_primary",
    description: `Postal code as in the source; may be missing or foreign. ${NO_CRM_ROW}`,
    example: "9000",
  },
  {
    path: "address.city",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "crm_via_primary",
    description: `Municipality. ${NO_CRM_ROW}`,
    example: "Gent",
  },
  {
    path: "address.country",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "crm_via_primary",
    description: `As in the source; not guaranteed ISO (\`BE\`, \`België\`, \`be\` …); not always filled. observed_values lists the most frequent values held (up to 50). ${NO_CRM_ROW}`,
    example: "BE",
  },
  {
    path: "address.province",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "crm_via_primary",
    description: `Free text in either language, no code, no reference list; absence is valid; unrelated to vacancy \`location.province\`. The \`province\` filter matches this text exactly: case-, accent- and space-sensitive (\`Antwerpen\` does not match \`antwerpen\`); observed_values lists the most frequent texts held (up to 50). ${NO_CRM_ROW}`,
    example: "Oost-Vlaanderen",
  },
  {
    path: "address.latitude",
    type: "number",
    nullable: true,
    kind: "number",
    source: "primary",
    description:
      "Latitude of the postal-code area, not the building; null when the postal code is missing or not a known area.",
    example: 51.0543,
  },
  {
    path: "address.longitude",
    type: "number",
    nullable: true,
    kind: "number",
    source: "primary",
    description:
      "Longitude of the postal-code area, not the building; null when the postal code is missing or not a known area.",
    example: 3.7174,
  },
  {
    path: "address.geo_precision",
    type: "string",
    nullable: true,
    kind: "enum",
    source: "svc_derived",
    description: "Precision of latitude/longitude; null when there is no coordinate.",
    allowedValues: [
      { value: "postal_code", description: "the coordinate is that of the postal-code area" },
    ],
    example: "postal_code",
  },
  {
    path: "contact.email",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "crm_via_primary",
    description: `General e-mail address, not validated. ${NO_CRM_ROW}`,
    example: "info@example-praktijk.be",
  },
  {
    path: "contact.phone",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "crm_via_primary",
    description: `Phone number, no fixed format. ${NO_CRM_ROW}`,
    example: "09 222 33 44",
  },
  {
    path: "presentation.logo",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "primary",
    description: `Logo reference (upload path or URL), format not guaranteed. ${SECONDARY_NULL}`,
    example: "logos/praktijk-2.png",
  },
  {
    path: "presentation.region_text",
    type: "string",
    nullable: true,
    kind: "html",
    source: "primary",
    description: `Region text, HTML unchanged from the source. ${SECONDARY_NULL}`,
    example: "<p>Regio <strong>Gent</strong> en omstreken</p>",
  },
  {
    path: "presentation.contact_text",
    type: "string",
    nullable: true,
    kind: "html",
    source: "primary",
    description: `Contact text, HTML unchanged from the source. ${SECONDARY_NULL}`,
    example: "<p>Bel ons op 09 222 33 44</p>",
  },
  {
    path: "coach.reference",
    type: "string",
    nullable: true,
    kind: "identifier",
    source: "primary",
    description: `Internal reference of the responsible staff member; never a name or e-mail. ${SECONDARY_NULL}`,
    example: "MDW0007",
  },
  {
    path: "external_refs.crm_id",
    type: "string",
    nullable: false,
    kind: "identifier",
    source: "crm_via_primary",
    description: "Origin of the identity; currently equal to practice_id.",
    example: "f1c7a000-0000-4000-8000-000000000002",
  },
  {
    path: "external_refs.tdm_ids",
    type: "array",
    items: "string",
    nullable: false,
    kind: "list",
    source: "primary",
    description:
      "Zero or more TDM references over all the practice's primary rows, distinct and sorted; a relation, not an identity. Always empty for a secondary-source practice.",
    example: ["TDM100002"],
  },
  {
    path: "warnings",
    type: "array",
    items: "string",
    nullable: false,
    kind: "enum",
    source: "svc_derived",
    description:
      "Usually empty; data-quality notes in the order listed in allowed_values. Never set for a secondary-source practice.",
    allowedValues: PRACTICE_WARNINGS.map((value) => ({
      value,
      description: WARNING_MEANING[value],
    })),
    example: [],
  },
];

export const PRACTICE_RESOURCE = {
  resource: "practice",
  endpoint: "/v1/practices",
  identifier: "practice_id",
  schemaVersion: 1,
} as const;

/** GET /v1/meta/practices: the catalogue plus what the sources hold; no reference lists. */
export async function practiceMetadata(source: PracticeSource) {
  return metadataResource(PRACTICE_RESOURCE, PRACTICE_FIELDS, {
    referenceLists: {},
    observedValues: await source.observedValues(),
    events: occurredAtFor("practice"),
  });
}
