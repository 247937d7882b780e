/** Field kinds used in the metadata endpoints (the contract's list). */
export const KINDS = {
  identifier: "identity or opaque reference; do not interpret or parse",
  reference: "points to the identity of another resource (`references` names it)",
  free_text: "free text from the source; no picklist, no normalisation, no format guarantee",
  html: "free text that may contain HTML, unchanged from the source",
  enum: "fixed list; `allowed_values` holds every value that can be returned",
  reference_list: "code from a reference list; values are in `reference_lists`",
  legacy_code: "raw source value, not normalised; use the adjacent normalised field for logic",
  derived: "derived by the service from other source fields",
  boolean: "true or false",
  date: "YYYY-MM-DD",
  date_time: "ISO 8601 with offset",
  number: "number",
  list: "list of values",
  reserved: "in the contract but no source yet; always null",
} as const;

export type FieldKind = keyof typeof KINDS;

/** Sources named in field metadata (the contract's list). */
export const SOURCES = {
  primary: "the master backend (the primary system's database)",
  crm_via_primary: "company data from a CRM, synchronised through the primary database",
  svc_derived: "derived by the service",
  none: "no source yet",
} as const;

export type FieldSource = keyof typeof SOURCES;
