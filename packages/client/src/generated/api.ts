// Generated from the OpenAPI document by packages/codegen; do not edit. Regenerate: npm run generate.

/** The contract version these types were generated from. */
export const API_VERSION = "0.1.0";

/** Every `error.code` of the contract. */
export const ERROR_CODES = [
  "MALFORMED_REQUEST",
  "UNAUTHENTICATED",
  "INSUFFICIENT_SCOPE",
  "CSRF_REJECTED",
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "REQUEST_TIMEOUT",
  "CONFLICT",
  "IDEMPOTENT_REQUEST_IN_PROGRESS",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "VALIDATION_ERROR",
  "RATE_LIMITED",
  "REQUEST_HEADERS_TOO_LARGE",
  "INTERNAL_ERROR",
  "SERVICE_UNAVAILABLE",
  "LEGACY_SOURCE_UNAVAILABLE",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** An application. */
export type Application = {
  application_uuid: string;
  /** The candidate the application was recorded for (not rewritten by later merges). */
  candidate_uuid: string;
  vacancy_uuid: string;
  practice_id: string;
  /** How the candidate identity was resolved: resolved, unresolved (no usable identifier), ambiguous (identifiers of different candidates). */
  resolution: "resolved" | "unresolved" | "ambiguous";
  consent_flag: boolean;
  /** The entrypoint as received. */
  entrypoint_raw: string | null;
  /** The known entrypoint it maps to (`website`, `vacancy_page`, `linkedin`, …); null when unknown. */
  entrypoint_code: string | null;
  created_at: string;
  /** Null until the application is submitted. */
  updated_at: string | null;
};

/** The create response: the application without updated_at, plus the two outcome flags. */
export type ApplicationCreated = {
  application_uuid: string;
  /** The candidate the application was recorded for (not rewritten by later merges). */
  candidate_uuid: string;
  vacancy_uuid: string;
  practice_id: string;
  /** How the candidate identity was resolved: resolved, unresolved (no usable identifier), ambiguous (identifiers of different candidates). */
  resolution: "resolved" | "unresolved" | "ambiguous";
  consent_flag: boolean;
  /** The entrypoint as received. */
  entrypoint_raw: string | null;
  /** The known entrypoint it maps to (`website`, `vacancy_page`, `linkedin`, …); null when unknown. */
  entrypoint_code: string | null;
  created_at: string;
  /** A new candidate identity was created for this application. */
  candidate_created: boolean;
  /** True with 201; false with 200 (the same person already applied to this vacancy: the existing application, unchanged). */
  application_created: boolean;
};

export type ApplicationRequest = {
  vacancy_uuid: string;
  practice_id?: string | null;
  candidate:
    | {
        email: string;
      }
    | {
        phone: string;
      };
  consent: boolean;
  entrypoint?: string | null;
};

/** A candidate identity; no personal data, no lookup hash. */
export type Candidate = {
  candidate_uuid: string;
  status: "active" | "merged" | "inactive";
  /** Set when merged: the candidate this one was merged into (follow the chain to the survivor). */
  merged_into_candidate_uuid: string | null;
  created_at: string;
  /** Null until the candidate changes (a merge). */
  updated_at: string | null;
};

export type CrmAccount = {
  crm_id?: string;
  name: string | null;
  alias: string | null;
  organisation_type: string | null;
  language: string | null;
  identifiers: {
    vat: string | null;
  };
  address: {
    street: string | null;
    postal_code: string | null;
    city: string | null;
    province: string | null;
    country: string | null;
  };
  contact: {
    email: string | null;
    phone: string | null;
  };
  period: {
    start_date: string | null;
    stop_date: string | null;
  };
  /** The CRM's modification time: ISO 8601 with seconds and an offset, from 1970 up to one hour ahead of the service's clock. */
  modified_on: string;
};

export type CrmAccountsBulk = {
  accounts: Array<{
    crm_id: string;
    name: string | null;
    alias: string | null;
    organisation_type: string | null;
    language: string | null;
    identifiers: {
      vat: string | null;
    };
    address: {
      street: string | null;
      postal_code: string | null;
      city: string | null;
      province: string | null;
      country: string | null;
    };
    contact: {
      email: string | null;
      phone: string | null;
    };
    period: {
      start_date: string | null;
      stop_date: string | null;
    };
    /** The CRM's modification time: ISO 8601 with seconds and an offset, from 1970 up to one hour ahead of the service's clock. */
    modified_on: string;
  }>;
};

export type CrmBulkResult = {
  received: number;
  applied: number;
  results: Array<{
    index: number;
    crm_id: string;
    /** Whether this write changed the mirror; a stale or replayed write is acknowledged, not applied. */
    applied: boolean;
    /** created: no live version existed; replaced: an older version was replaced; deleted: a tombstone now holds this version; duplicate: this exact version is already stored; superseded: the stored version is newer, or equally new with other content. */
    outcome: "created" | "replaced" | "deleted" | "duplicate" | "superseded";
    /** The stored (winning) version after this write, UTC with microseconds. */
    modified_on: string;
    /** Whether the stored version is a delete (tombstone). */
    deleted: boolean;
  }>;
};

/** An account as the mirror holds it: the last applied write, or its tombstone. */
export type CrmMirroredAccount = {
  crm_id: string;
  name: string | null;
  alias: string | null;
  organisation_type: string | null;
  language: string | null;
  identifiers: {
    vat: string | null;
  };
  address: {
    street: string | null;
    postal_code: string | null;
    city: string | null;
    province: string | null;
    country: string | null;
  };
  contact: {
    email: string | null;
    phone: string | null;
  };
  period: {
    start_date: string | null;
    stop_date: string | null;
  };
  /** The stored (winning) version, UTC with microseconds. */
  modified_on: string;
  /** A tombstone: the account was deleted at `modified_on`; every field is null. */
  deleted: boolean;
};

export type CrmWriteResult = {
  crm_id: string;
  /** Whether this write changed the mirror; a stale or replayed write is acknowledged, not applied. */
  applied: boolean;
  /** created: no live version existed; replaced: an older version was replaced; deleted: a tombstone now holds this version; duplicate: this exact version is already stored; superseded: the stored version is newer, or equally new with other content. */
  outcome: "created" | "replaced" | "deleted" | "duplicate" | "superseded";
  /** The stored (winning) version after this write, UTC with microseconds. */
  modified_on: string;
  /** Whether the stored version is a delete (tombstone). */
  deleted: boolean;
};

export type CursorPageMeta = {
  request_id: RequestId;
  /** The API version. */
  api_version: "v1";
  pagination: CursorPagination;
};

export type CursorPagination = {
  /** Pages read so far in this walk, this one included (1 without a cursor). */
  page: number;
  /** Page size (at most 100). */
  per_page: number;
  /** Total items over all pages. */
  total: number;
  /** Total pages. */
  total_pages: number;
  /** Opaque; pass it as `cursor` to read on from here. Always present: an empty page's cursor is where new items will appear. */
  next_cursor: string;
  /** More items can be read now; false: the walk has caught up. */
  has_more: boolean;
};

export type ErrorEnvelope = {
  success: false;
  error: {
    /** Stable machine-readable code. */
    code:
      | "MALFORMED_REQUEST"
      | "UNAUTHENTICATED"
      | "INSUFFICIENT_SCOPE"
      | "CSRF_REJECTED"
      | "NOT_FOUND"
      | "METHOD_NOT_ALLOWED"
      | "REQUEST_TIMEOUT"
      | "CONFLICT"
      | "IDEMPOTENT_REQUEST_IN_PROGRESS"
      | "PAYLOAD_TOO_LARGE"
      | "UNSUPPORTED_MEDIA_TYPE"
      | "VALIDATION_ERROR"
      | "RATE_LIMITED"
      | "REQUEST_HEADERS_TOO_LARGE"
      | "INTERNAL_ERROR"
      | "SERVICE_UNAVAILABLE"
      | "LEGACY_SOURCE_UNAVAILABLE";
    /** Human text; may change. */
    message: string;
    /** VALIDATION_ERROR only: one entry per bad parameter, header or body field. */
    details?: Array<{
      /** The parameter, header or body field (dotted path, `accounts[3].name` for list items). */
      field: string;
      message: string;
    }>;
  };
  meta: Meta;
};

export type Event_application_created = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "application.created";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the service recorded the application: the application's `created_at`, in the same transaction as the event (the event exists only if that commits). */
  occurred_at: string;
  entity: {
    type: "application";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type Event_application_submitted = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "application.submitted";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the service recorded the submission: its `submitted_at`, in the same transaction as the event (the event exists only if that commits). */
  occurred_at: string;
  entity: {
    type: "application";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type Event_candidate_created = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "candidate.created";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the service recorded the new candidate: the candidate's `created_at`, in the same transaction as the event (the event exists only if that commits). */
  occurred_at: string;
  entity: {
    type: "candidate";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type Event_practice_created = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "practice.created";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the primary system stamped the practice: the latest modification time among its rows (its practice rows and its CRM record), when the change was found through it; otherwise when the service detected the change: a change that left the modification time alone (found by the full sweep, within about 15 minutes), a modification time ahead of the service's clock, from before the service last saw the record, or inside the repeated autumn hour. */
  occurred_at: string;
  entity: {
    type: "practice";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type Event_practice_deleted = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "practice.deleted";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the service detected it (usually in the full sweep): a practice gone from both sources leaves no row to stamp. */
  occurred_at: string;
  entity: {
    type: "practice";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type Event_practice_updated = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "practice.updated";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the primary system stamped the change: the latest modification time among the practice's rows (its practice rows and its CRM record), when the change was found through it; otherwise when the service detected the change: a change that left the modification time alone (found by the full sweep, within about 15 minutes), a modification time ahead of the service's clock, from before the service last saw the record, or inside the repeated autumn hour (a TDM link, for one), or `active` changing on a period date. */
  occurred_at: string;
  entity: {
    type: "practice";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type Event_recruitment_case_created = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "recruitment_case.created";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the service recorded the case: the recruitment case's `created_at`, in the same transaction as the event (the event exists only if that commits). */
  occurred_at: string;
  entity: {
    type: "recruitment_case";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type Event_system_ping = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "system.ping";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the test delivery was asked for. */
  occurred_at: string;
  entity: {
    type: "system";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type Event_vacancy_created = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "vacancy.created";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the primary system stamped the vacancy: its modification time (the vacancy's `updated_at`), when the change was found through it; otherwise when the service detected the change: a change that left the modification time alone (found by the full sweep, within about 15 minutes), a modification time ahead of the service's clock, from before the service last saw the record, or inside the repeated autumn hour, or a vacancy without one. */
  occurred_at: string;
  entity: {
    type: "vacancy";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type Event_vacancy_deleted = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "vacancy.deleted";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. A soft delete that moved the vacancy's modification time: that time. A hard delete, or a soft delete that left the time alone: when the service detected it (usually in the full sweep). */
  occurred_at: string;
  entity: {
    type: "vacancy";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

export type Event_vacancy_updated = {
  /** Unique per event; also X-SVC-Event-Id. Deduplicate on it. */
  event_uuid: string;
  event_type: "vacancy.updated";
  /** Payload version. */
  event_version: 1;
  /** ISO 8601 with offset. When the primary system stamped the change: the vacancy's modification time (its `updated_at`), when the change was found through it; otherwise when the service detected the change: a change that left the modification time alone (found by the full sweep, within about 15 minutes), a modification time ahead of the service's clock, from before the service last saw the record, or inside the repeated autumn hour, or `published` turning true on the display date. */
  occurred_at: string;
  entity: {
    type: "vacancy";
    /** Identifier of the entity. */
    id: string;
  };
  links: {
    /** Where the entity's current state is fetched (with a token). */
    self: string;
  };
};

/** One event of the feed. */
export type FeedEvent = {
  /** Also `X-SVC-Event-Id`. */
  event_uuid: string;
  event_type:
    | "vacancy.created"
    | "vacancy.updated"
    | "vacancy.deleted"
    | "practice.created"
    | "practice.updated"
    | "practice.deleted"
    | "candidate.created"
    | "application.created"
    | "application.submitted"
    | "recruitment_case.created";
  /** When the service recorded the event (it entered the feed then); the `created_since` and `created_before` filters use it. `payload.occurred_at` is the event's own time (what it means per event type: the `occurred_at` of each event's payload schema), so for a detected vacancy or practice change it can be earlier than `created_at`, and the feed is not in `occurred_at` order. */
  created_at: string;
  /** The body a subscriber receives for this event, field for field: serialised compactly (`JSON.stringify`) it is the signed body byte for byte. */
  payload:
    | Event_vacancy_created
    | Event_vacancy_updated
    | Event_vacancy_deleted
    | Event_practice_created
    | Event_practice_updated
    | Event_practice_deleted
    | Event_candidate_created
    | Event_application_created
    | Event_application_submitted
    | Event_recruitment_case_created;
};

export type FieldMetadata = {
  /** Dotted path of the field in the resource. */
  path: string;
  /** JSON type, or [type, "null"] when nullable. */
  json_type: string | Array<string>;
  nullable: boolean;
  /** Field kind; `kinds` describes each. */
  kind:
    | "identifier"
    | "reference"
    | "free_text"
    | "html"
    | "enum"
    | "reference_list"
    | "legacy_code"
    | "derived"
    | "boolean"
    | "date"
    | "date_time"
    | "number"
    | "list"
    | "reserved";
  description: string;
  /** Where the value comes from; `sources` describes each. */
  source: "primary" | "crm_via_primary" | "svc_derived" | "none";
  /** True for enum and reference_list fields. */
  picklist: boolean;
  allowed_values: null | Array<{
    value: string;
    description: string;
  }>;
  /** The reference list (in `reference_lists`) holding this field's codes. */
  reference_list: string | null;
  /** The resource field this one points to (`practices.practice_id`). */
  references: string | null;
  observed_values: null | Array<{
    value: string;
    note: string;
  }>;
  /** An example value of the field (any JSON type). */
  example: unknown;
};

/** Not in the envelope; contains no database detail. */
export type Health = {
  /** The service that answered (and whose process is up); not the installation. */
  service: string;
  status: "ok";
  /** The installation's semantic version, also `info.version` of this document. */
  version: string;
};

export type Meta = {
  request_id: RequestId;
  /** The API version. */
  api_version: "v1";
};

/** RFC 6749 5.2 error body, not the `/v1` error envelope. */
export type OAuthError = {
  error:
    | "invalid_request"
    | "invalid_client"
    | "invalid_scope"
    | "unsupported_grant_type"
    | "slow_down"
    | "temporarily_unavailable"
    | "server_error";
  error_description: string;
};

export type PageMeta = {
  request_id: RequestId;
  /** The API version. */
  api_version: "v1";
  pagination: Pagination;
};

export type Pagination = {
  /** Current page, from 1. */
  page: number;
  /** Page size (at most 100). */
  per_page: number;
  /** Total items over all pages. */
  total: number;
  /** Total pages. */
  total_pages: number;
};

export type PortalSession = {
  id: string;
  subscription_ids: Array<string> | null;
  read_only: boolean;
  created_at: string;
  expires_at: string;
  /** When the link was opened; null until then. */
  opened_at: string | null;
  revoked_at: string | null;
  revoked_reason: ("requested" | "client_revoked") | null;
};

export type PortalSessionCreate = {
  /** Only these subscriptions of the client (the session cannot create others); absent: all of them. */
  subscription_ids?: Array<string>;
  /** The session can look but change nothing. Default false. */
  read_only?: boolean;
  /** How long the link and its session live, at most the installation's maximum (`WEBHOOK_PORTAL_SESSION_MAX_TTL_SECONDS`, 3600 by default), which is also the default. */
  ttl_seconds?: number;
};

/** A portal session with its link (create only). */
export type PortalSessionWithUrl = {
  id: string;
  subscription_ids: Array<string> | null;
  read_only: boolean;
  created_at: string;
  expires_at: string;
  /** When the link was opened; null until then. */
  opened_at: string | null;
  revoked_at: string | null;
  revoked_reason: ("requested" | "client_revoked") | null;
  /** The single-use link (it carries a one-time token): give it to the integrator; it is shown in this answer only. */
  url: string;
};

/** A practice, from the primary system or the secondary source. */
export type Practice = {
  /** The CRM reference; opaque (not a UUID field): formats differ per source, e.g. `ACC/2009/117` or `OUD 0042` (percent-encode it in a path). When an id exists in both sources, the primary-system practice wins. Lists are ordered by this id, compared as bytes. */
  practice_id: string;
  /** Name from the CRM record; for a primary-system practice, the primary copy when the CRM name is missing or empty. The `search` filter matches this value exactly: case-, accent- and space-sensitive, no fuzzy matching. */
  name: string | null;
  /** Short or trade name. Null when the practice has no CRM record (warning `source_record_missing`). */
  alias: string | null;
  /** Primary-system practice: active in the primary system and visible. Secondary-source practice: today (the calendar date in Europe/Brussels) lies within period.start_date and period.stop_date, both inclusive; a missing bound is open. */
  active: boolean;
  /** Visible in the primary system; a secondary-source practice is always visible. */
  visible: boolean;
  /** ISO 639-1 language of the practice (for a secondary-source practice, of its CRM record); any other source value, also `NL` or `nl-BE`, becomes null. */
  language: "nl" | "fr" | null;
  /** Passed through unchanged (the empty string too); no validation, no fixed set; not the same as vacancy `practice.type`. Null when the practice has no CRM record (warning `source_record_missing`). */
  organisation_type: string | null;
  period: {
    /** Start date. Null when the practice has no CRM record (warning `source_record_missing`). */
    start_date: string | null;
    /** Stop date; `2999-12-31` means open-ended and is passed through unchanged; a past date means stopped. Null when the practice has no CRM record (warning `source_record_missing`). */
    stop_date: string | null;
  };
  identifiers: {
    /** VAT number as in the source, no format validation, often missing. Null when the practice has no CRM record (warning `source_record_missing`). */
    vat: string | null;
  };
  address: {
    /** Street and number. Null when the practice has no CRM record (warning `source_record_missing`). */
    street: string | null;
    /** Postal code as in the source; may be missing or foreign. Null when the practice has no CRM record (warning `source_record_missing`). */
    postal_code: string | null;
    /** Municipality. Null when the practice has no CRM record (warning `source_record_missing`). */
    city: string | null;
    /** As in the source; not guaranteed ISO (`BE`, `België`, `be` …); not always filled. observed_values lists the most frequent values held (up to 50). Null when the practice has no CRM record (warning `source_record_missing`). */
    country: string | null;
    /** Free text in either language, no code, no reference list; absence is valid; unrelated to vacancy `location.province`. The `province` filter matches this text exactly: case-, accent- and space-sensitive (`Antwerpen` does not match `antwerpen`); observed_values lists the most frequent texts held (up to 50). Null when the practice has no CRM record (warning `source_record_missing`). */
    province: string | null;
    /** Latitude of the postal-code area, not the building; null when the postal code is missing or not a known area. */
    latitude: number | null;
    /** Longitude of the postal-code area, not the building; null when the postal code is missing or not a known area. */
    longitude: number | null;
    /** Precision of latitude/longitude; null when there is no coordinate. */
    geo_precision: "postal_code" | null;
  };
  contact: {
    /** General e-mail address, not validated. Null when the practice has no CRM record (warning `source_record_missing`). */
    email: string | null;
    /** Phone number, no fixed format. Null when the practice has no CRM record (warning `source_record_missing`). */
    phone: string | null;
  };
  presentation: {
    /** Logo reference (upload path or URL), format not guaranteed. Always null for a secondary-source practice. */
    logo: string | null;
    /** Region text, HTML unchanged from the source. Always null for a secondary-source practice. */
    region_text: string | null;
    /** Contact text, HTML unchanged from the source. Always null for a secondary-source practice. */
    contact_text: string | null;
  };
  coach: {
    /** Internal reference of the responsible staff member; never a name or e-mail. Always null for a secondary-source practice. */
    reference: string | null;
  };
  external_refs: {
    /** Origin of the identity; currently equal to practice_id. */
    crm_id: string;
    /** Zero or more TDM references over all the practice's primary rows, distinct and sorted; a relation, not an identity. Always empty for a secondary-source practice. */
    tdm_ids: Array<string>;
  };
  /** Usually empty; data-quality notes in the order listed in allowed_values. Never set for a secondary-source practice. */
  warnings: Array<"multiple_active_rows" | "source_record_missing">;
};

/** The practice field catalogue with the values the sources hold; practices have no reference lists. */
export type PracticeMetadata = {
  resource: string;
  /** The resource's list endpoint. */
  endpoint: string;
  /** Name of the id field. */
  identifier: string;
  /** Version of the resource's field schema. */
  schema_version: number;
  fields: Array<FieldMetadata>;
  /** Always empty for practices. */
  reference_lists: Record<string, never>;
  kinds: {
    identifier: string;
    reference: string;
    free_text: string;
    html: string;
    enum: string;
    reference_list: string;
    legacy_code: string;
    derived: string;
    boolean: string;
    date: string;
    date_time: string;
    number: string;
    list: string;
    reserved: string;
  };
  sources: {
    primary: string;
    crm_via_primary: string;
    svc_derived: string;
    none: string;
  };
  /** The resource's webhook event types, each with what its `occurred_at` means. */
  events: {
    "practice.created": {
      /** When the primary system stamped the practice: the latest modification time among its rows (its practice rows and its CRM record), when the change was found through it; otherwise when the service detected the change: a change that left the modification time alone (found by the full sweep, within about 15 minutes), a modification time ahead of the service's clock, from before the service last saw the record, or inside the repeated autumn hour. */
      occurred_at: string;
    };
    "practice.updated": {
      /** When the primary system stamped the change: the latest modification time among the practice's rows (its practice rows and its CRM record), when the change was found through it; otherwise when the service detected the change: a change that left the modification time alone (found by the full sweep, within about 15 minutes), a modification time ahead of the service's clock, from before the service last saw the record, or inside the repeated autumn hour (a TDM link, for one), or `active` changing on a period date. */
      occurred_at: string;
    };
    "practice.deleted": {
      /** When the service detected it (usually in the full sweep): a practice gone from both sources leaves no row to stamp. */
      occurred_at: string;
    };
  };
};

export type RecruitmentCase = {
  recruitment_case_uuid: string;
  candidate_uuid: string;
  vacancy_uuid: string;
  practice_id: string;
  /** Its applications, oldest first. */
  application_uuids: Array<string>;
  created_at: string;
  updated_at: string | null;
};

/** Per request; also in the X-Request-Id response header. */
export type RequestId = string;

export type Submission = {
  application_uuid: string;
  submitted_at: string;
};

export type TokenRequest = {
  grant_type: "client_credentials";
  /** Space-separated scopes; empty or absent: all scopes of the client. A scope that does not exist or is not assigned is 400 invalid_scope. */
  scope?: string;
};

export type TokenResponse = {
  /** An RFC 9068 JWT (ES256); send it as `Authorization: Bearer <token>`. */
  access_token: string;
  token_type: "Bearer";
  /** Seconds; tokens live one hour. */
  expires_in: 3600;
  /** The granted scopes, space-separated. */
  scope: string;
};

/** A vacancy; deleted vacancies are never returned. */
export type Vacancy = {
  /** Identity of the vacancy, issued by the primary system. */
  uuid: string;
  /** The first non-empty of: public heading, frontend name, internal name. Null when all three are empty. */
  title: string | null;
  /** Path on the public site including the language prefix: `vacatures/` (nl) or `postesvacants/` (fr). */
  slug: string | null;
  /** Short introduction. */
  teaser: string | null;
  /** Language of the vacancy (ISO 639-1). Any other source value becomes null. */
  language: "nl" | "fr" | null;
  practice: {
    /** The practice_id of the practice; may point to either practice source. Referential integrity is not enforced: the practice may not exist. */
    legacy_reference: string | null;
    /** Snapshot of the practice name at vacancy creation; never updated. */
    name: string | null;
    /** Which choice list the practice was picked from in the vacancy form (snapshot at creation; not the practice's organisation type). */
    type: "Primary" | "Secondary" | null;
  };
  location: {
    province: {
      /** Province code from reference list `provinces`; may be absent, inactive or unknown to the list. */
      code: string | null;
      /** Label of the province code in reference list `provinces`; null for an unknown or absent code. */
      label: string | null;
    };
    /** Free-text region; may contain HTML. */
    region: string | null;
    /** In the contract but without a source yet; always null. */
    postal_code: null;
    /** In the contract but without a source yet; always null. */
    city: null;
    /** In the contract but without a source yet; always null. */
    country: null;
    /** In the contract but without a source yet; always null. */
    latitude: null;
    /** In the contract but without a source yet; always null. */
    longitude: null;
  };
  position: {
    /** Position code from reference list `positions`; may be absent, inactive or unknown to the list. */
    code: string | null;
    /** Label of the position code in reference list `positions`; null for an unknown or absent code. */
    label: string | null;
  };
  employment: {
    time: {
      /** Raw working-time value, not normalised; use employment.time.value for logic. */
      code: string | null;
      /** Normalised working time; null for an unknown or absent source value. */
      value: "full_time" | "part_time" | "full_or_part_time" | null;
    };
    contract: {
      /** Raw contract value, not normalised; use employment.contract.value for logic. */
      code: string | null;
      /** Normalised contract type; null for an unknown or absent source value. */
      value: "employee" | "self_employed" | "employee_or_self_employed" | null;
    };
  };
  content: {
    /** Introduction as entered (HTML, unchanged); may contain formatting pasted from a word processor. */
    intro: string | null;
    /** Candidate profile as entered (HTML, unchanged). */
    profile: string | null;
    /** Tasks as entered (HTML, unchanged). */
    tasks: string | null;
    /** What the practice offers, as entered (HTML, unchanged). */
    offer: string | null;
    /** Contact text as entered (HTML, unchanged). */
    contact: string | null;
  };
  /** Image reference (upload path, absolute URL or file name); format not guaranteed. */
  image: string | null;
  status: {
    /** Raw status value of an unused legacy workflow; the backend sets 1 on creation. Use status.value for logic. */
    code: string | null;
    /** Status of an unused legacy workflow; does NOT decide whether a vacancy is online (see published). Null for an unknown or absent source value. */
    value: "created" | "open" | "filled" | null;
  };
  /** Set active in the primary system. */
  visible: boolean;
  /** Online per the public-site rule: visible AND (display_date absent, or today or earlier), today being the Europe/Brussels calendar date. */
  published: boolean;
  /** Online from this date (YYYY-MM-DD); null means immediately; a future date means scheduled. */
  display_date: string | null;
  /** Creation time, ISO 8601 with the Europe/Brussels offset of that instant. */
  created_at: string | null;
  /** Last modification time, ISO 8601 with the Europe/Brussels offset of that instant. */
  updated_at: string | null;
  /** In the contract but without a source yet; always null. */
  valid_through: null;
  /** Raw value with unconfirmed meaning; do not interpret. */
  seeking_nurse_code: string | null;
};

/** The vacancy field catalogue with the live reference lists `positions` and `provinces`. */
export type VacancyMetadata = {
  resource: string;
  /** The resource's list endpoint. */
  endpoint: string;
  /** Name of the id field. */
  identifier: string;
  /** Version of the resource's field schema. */
  schema_version: number;
  fields: Array<FieldMetadata>;
  reference_lists: {
    positions: {
      used_by: "position.code";
      entries: Array<{
        code: string;
        label: string;
        /** Selectable today; inactive entries stay because older vacancies may refer to them. */
        active: boolean;
      }>;
    };
    provinces: {
      used_by: "location.province.code";
      entries: Array<{
        code: string;
        label: string;
        /** Selectable today; inactive entries stay because older vacancies may refer to them. */
        active: boolean;
      }>;
    };
  };
  kinds: {
    identifier: string;
    reference: string;
    free_text: string;
    html: string;
    enum: string;
    reference_list: string;
    legacy_code: string;
    derived: string;
    boolean: string;
    date: string;
    date_time: string;
    number: string;
    list: string;
    reserved: string;
  };
  sources: {
    primary: string;
    crm_via_primary: string;
    svc_derived: string;
    none: string;
  };
  /** The resource's webhook event types, each with what its `occurred_at` means. */
  events: {
    "vacancy.created": {
      /** When the primary system stamped the vacancy: its modification time (the vacancy's `updated_at`), when the change was found through it; otherwise when the service detected the change: a change that left the modification time alone (found by the full sweep, within about 15 minutes), a modification time ahead of the service's clock, from before the service last saw the record, or inside the repeated autumn hour, or a vacancy without one. */
      occurred_at: string;
    };
    "vacancy.updated": {
      /** When the primary system stamped the change: the vacancy's modification time (its `updated_at`), when the change was found through it; otherwise when the service detected the change: a change that left the modification time alone (found by the full sweep, within about 15 minutes), a modification time ahead of the service's clock, from before the service last saw the record, or inside the repeated autumn hour, or `published` turning true on the display date. */
      occurred_at: string;
    };
    "vacancy.deleted": {
      /** A soft delete that moved the vacancy's modification time: that time. A hard delete, or a soft delete that left the time alone: when the service detected it (usually in the full sweep). */
      occurred_at: string;
    };
  };
};

export type Version = {
  api_version: "v1";
  /** The installation's semantic version. */
  build: string;
  /** The runtime's version (the name is kept for compatibility; it carries the Node.js version). */
  php: string;
  environment: "production" | "sandbox";
};

export type WebhookCreate = {
  url: string;
  /** Event types of this environment's catalogue (this document's `webhooks`); another is 422. Duplicates are collapsed. */
  event_types: Array<
    | "vacancy.created"
    | "vacancy.updated"
    | "vacancy.deleted"
    | "practice.created"
    | "practice.updated"
    | "practice.deleted"
    | "candidate.created"
    | "application.created"
    | "application.submitted"
    | "recruitment_case.created"
    | "system.ping"
  >;
};

export type WebhookDeleted = {
  webhook_uuid: string;
  deleted: true;
};

export type WebhookDelivery = {
  delivery_uuid: string;
  webhook_uuid: string;
  event_uuid: string;
  event_type:
    | "vacancy.created"
    | "vacancy.updated"
    | "vacancy.deleted"
    | "practice.created"
    | "practice.updated"
    | "practice.deleted"
    | "candidate.created"
    | "application.created"
    | "application.submitted"
    | "recruitment_case.created"
    | "system.ping";
  /** pending (attempts to come), succeeded (a 2xx), failed (final, not retried), dead (six failed attempts in the round). */
  status: "pending" | "succeeded" | "failed" | "dead";
  failure_reason:
    ("http_status" | "blocked_url" | "subscription_disabled" | "attempts_exhausted") | null;
  /** Redelivery starts a new round with the full schedule. */
  round: number;
  /** Attempts over all rounds. */
  attempt_count: number;
  round_attempt_count: number;
  last_status_code: number | null;
  last_attempt_at: string | null;
  /** Null unless pending. */
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
};

/** A delivery with its attempts. */
export type WebhookDeliveryDetail = {
  delivery_uuid: string;
  webhook_uuid: string;
  event_uuid: string;
  event_type:
    | "vacancy.created"
    | "vacancy.updated"
    | "vacancy.deleted"
    | "practice.created"
    | "practice.updated"
    | "practice.deleted"
    | "candidate.created"
    | "application.created"
    | "application.submitted"
    | "recruitment_case.created"
    | "system.ping";
  /** pending (attempts to come), succeeded (a 2xx), failed (final, not retried), dead (six failed attempts in the round). */
  status: "pending" | "succeeded" | "failed" | "dead";
  failure_reason:
    ("http_status" | "blocked_url" | "subscription_disabled" | "attempts_exhausted") | null;
  /** Redelivery starts a new round with the full schedule. */
  round: number;
  /** Attempts over all rounds. */
  attempt_count: number;
  round_attempt_count: number;
  last_status_code: number | null;
  last_attempt_at: string | null;
  /** Null unless pending. */
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  attempts: Array<{
    /** Counts across rounds. */
    number: number;
    round: number;
    attempted_at: string;
    duration_ms: number;
    status_code: number | null;
    outcome: "succeeded" | "retrying" | "failed" | "dead";
    error_class:
      | (
          | "http_redirect"
          | "http_client_error"
          | "http_retryable_status"
          | "http_server_error"
          | "http_other_status"
          | "timeout"
          | "connection"
          | "tls"
          | "dns"
          | "blocked_url"
        )
      | null;
    /** Error names and codes of a transport failure; never headers or bodies. */
    error_detail: string | null;
    /** The start of the endpoint's answer, at most 512 characters. */
    response_sample: string | null;
  }>;
};

export type WebhookEventTypes = Array<{
  event_type:
    | "vacancy.created"
    | "vacancy.updated"
    | "vacancy.deleted"
    | "practice.created"
    | "practice.updated"
    | "practice.deleted"
    | "candidate.created"
    | "application.created"
    | "application.submitted"
    | "recruitment_case.created"
    | "system.ping";
  entity_type: string;
  description: string;
  /** What the payload's `occurred_at` means for this event type. */
  occurred_at: string;
  /** The payload's JSON Schema (2020-12). */
  schema: {
    [key: string]: unknown;
  };
  /** An example payload. */
  example: {
    [key: string]: unknown;
  };
}>;

export type WebhookPatch = {
  url?: string;
  /** Event types of this environment's catalogue (this document's `webhooks`); another is 422. Duplicates are collapsed. */
  event_types?: Array<
    | "vacancy.created"
    | "vacancy.updated"
    | "vacancy.deleted"
    | "practice.created"
    | "practice.updated"
    | "practice.deleted"
    | "candidate.created"
    | "application.created"
    | "application.submitted"
    | "recruitment_case.created"
    | "system.ping"
  >;
  enabled?: boolean;
};

export type WebhookRecover = {
  /** Start of the window (inclusive): at or after the time of the call minus the retention period, and before `until`. */
  since: string;
  /** End of the window (exclusive), later than `since`; default the time of the call. */
  until?: string;
};

export type WebhookRecovery = {
  webhook_uuid: string;
  since: string;
  /** The window's end: as sent, or the time of the call. */
  until: string;
  /** Failed and dead deliveries of the window that this call made pending again. */
  queued: number;
};

export type WebhookSubscription = {
  webhook_uuid: string;
  /** The endpoint, stored normalised (lower-case host, default port dropped, dot segments resolved). */
  url: string;
  event_types: Array<
    | "vacancy.created"
    | "vacancy.updated"
    | "vacancy.deleted"
    | "practice.created"
    | "practice.updated"
    | "practice.deleted"
    | "candidate.created"
    | "application.created"
    | "application.submitted"
    | "recruitment_case.created"
    | "system.ping"
  >;
  enabled: boolean;
  /** Null while enabled. `requested`: disabled by its owner (`enabled: false`). `endpoint_failing`: disabled automatically after every attempt failed for a period (5 days unless the installation says otherwise) with no success since; `enabled: true` enables it again. */
  disabled_reason: ("requested" | "endpoint_failing") | null;
  /** When it was disabled; null while enabled. */
  disabled_at: string | null;
  secret_rotated_at: string | null;
  /** After a rotation: until this instant the previous secret also signs (a second signature). */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
  /** Present only when `url` is on the loopback interface (`localhost`, 127.0.0.0/8, ::1), which only a local stack started with `WEBHOOK_ALLOW_LOOPBACK=true` accepts: deliveries then go to the machine the service runs on. The sandbox and production refuse such URLs. */
  warning?: string;
};

/** A subscription with its signing secret (create and rotate-secret only). */
export type WebhookSubscriptionWithSecret = {
  webhook_uuid: string;
  /** The endpoint, stored normalised (lower-case host, default port dropped, dot segments resolved). */
  url: string;
  event_types: Array<
    | "vacancy.created"
    | "vacancy.updated"
    | "vacancy.deleted"
    | "practice.created"
    | "practice.updated"
    | "practice.deleted"
    | "candidate.created"
    | "application.created"
    | "application.submitted"
    | "recruitment_case.created"
    | "system.ping"
  >;
  enabled: boolean;
  /** Null while enabled. `requested`: disabled by its owner (`enabled: false`). `endpoint_failing`: disabled automatically after every attempt failed for a period (5 days unless the installation says otherwise) with no success since; `enabled: true` enables it again. */
  disabled_reason: ("requested" | "endpoint_failing") | null;
  /** When it was disabled; null while enabled. */
  disabled_at: string | null;
  secret_rotated_at: string | null;
  /** After a rotation: until this instant the previous secret also signs (a second signature). */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
  /** Present only when `url` is on the loopback interface (`localhost`, 127.0.0.0/8, ::1), which only a local stack started with `WEBHOOK_ALLOW_LOOPBACK=true` accepts: deliveries then go to the machine the service runs on. The sandbox and production refuse such URLs. */
  warning?: string;
  /** The signing secret (`whsec_…`), shown in this answer only; it cannot be requested again. */
  secret: string;
};

/** Every /v1 operation by its operationId. */
export interface Operations {
  /** Create or replace many CRM accounts */
  bulkWriteCrmAccounts: {
    method: "POST";
    path: "/v1/crm-mirror/accounts:bulk";
    pathParams: never;
    query: never;
    headers: never;
    body: CrmAccountsBulk;
    bodyRequired: true;
    idempotencyKey: false;
    success: {
      success: true;
      data: CrmBulkResult;
      meta: Meta;
    };
  };
  /** Create an application */
  createApplication: {
    method: "POST";
    path: "/v1/applications";
    pathParams: never;
    query: never;
    headers: never;
    body: ApplicationRequest;
    bodyRequired: true;
    idempotencyKey: true;
    success: {
      success: true;
      data: ApplicationCreated;
      meta: Meta;
    };
  };
  /** Create a subscriber portal link */
  createPortalSession: {
    method: "POST";
    path: "/v1/webhooks/portal-sessions";
    pathParams: never;
    query: never;
    headers: never;
    body: PortalSessionCreate;
    bodyRequired: true;
    idempotencyKey: false;
    success: {
      success: true;
      data: PortalSessionWithUrl;
      meta: Meta;
    };
  };
  /** Create a webhook subscription */
  createWebhook: {
    method: "POST";
    path: "/v1/webhooks";
    pathParams: never;
    query: never;
    headers: never;
    body: WebhookCreate;
    bodyRequired: true;
    idempotencyKey: false;
    success: {
      success: true;
      data: WebhookSubscriptionWithSecret;
      meta: Meta;
    };
  };
  /** Delete a CRM account */
  deleteCrmAccount: {
    method: "DELETE";
    path: "/v1/crm-mirror/accounts/{crm_id}";
    pathParams: {
      crm_id: string;
    };
    query: never;
    headers: {
      "CRM-Modified-On": string;
    };
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: CrmWriteResult;
      meta: Meta;
    };
  };
  /** Delete a webhook subscription */
  deleteWebhook: {
    method: "DELETE";
    path: "/v1/webhooks/{webhook_uuid}";
    pathParams: {
      webhook_uuid: string;
    };
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: WebhookDeleted;
      meta: Meta;
    };
  };
  /** Read one application */
  getApplication: {
    method: "GET";
    path: "/v1/applications/{application_uuid}";
    pathParams: {
      application_uuid: string;
    };
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Application;
      meta: Meta;
    };
  };
  /** Read one candidate identity */
  getCandidate: {
    method: "GET";
    path: "/v1/candidates/{candidate_uuid}";
    pathParams: {
      candidate_uuid: string;
    };
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Candidate;
      meta: Meta;
    };
  };
  /** Read one CRM account back */
  getCrmAccount: {
    method: "GET";
    path: "/v1/crm-mirror/accounts/{crm_id}";
    pathParams: {
      crm_id: string;
    };
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: CrmMirroredAccount;
      meta: Meta;
    };
  };
  /** Read one event */
  getEvent: {
    method: "GET";
    path: "/v1/events/{event_uuid}";
    pathParams: {
      event_uuid: string;
    };
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: FeedEvent;
      meta: Meta;
    };
  };
  /** Service health */
  getHealthV1: {
    method: "GET";
    path: "/v1/health";
    pathParams: never;
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: Health;
  };
  /** Read one practice */
  getPractice: {
    method: "GET";
    path: "/v1/practices/{practice_id}";
    pathParams: {
      practice_id: string;
    };
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Practice;
      meta: Meta;
    };
  };
  /** Practice field metadata */
  getPracticeMetadata: {
    method: "GET";
    path: "/v1/meta/practices";
    pathParams: never;
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: PracticeMetadata;
      meta: Meta;
    };
  };
  /** Read one recruitment case */
  getRecruitmentCase: {
    method: "GET";
    path: "/v1/recruitment-cases/{recruitment_case_uuid}";
    pathParams: {
      recruitment_case_uuid: string;
    };
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: RecruitmentCase;
      meta: Meta;
    };
  };
  /** Read one vacancy */
  getVacancy: {
    method: "GET";
    path: "/v1/vacancies/{uuid}";
    pathParams: {
      uuid: string;
    };
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Vacancy;
      meta: Meta;
    };
  };
  /** Vacancy field metadata and reference lists */
  getVacancyMetadata: {
    method: "GET";
    path: "/v1/meta/vacancies";
    pathParams: never;
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: VacancyMetadata;
      meta: Meta;
    };
  };
  /** API and installation version */
  getVersionV1: {
    method: "GET";
    path: "/v1/version";
    pathParams: never;
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Version;
      meta: Meta;
    };
  };
  /** Read one webhook subscription */
  getWebhook: {
    method: "GET";
    path: "/v1/webhooks/{webhook_uuid}";
    pathParams: {
      webhook_uuid: string;
    };
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: WebhookSubscription;
      meta: Meta;
    };
  };
  /** Read one delivery with its attempts */
  getWebhookDelivery: {
    method: "GET";
    path: "/v1/webhooks/{webhook_uuid}/deliveries/{delivery_uuid}";
    pathParams: {
      webhook_uuid: string;
      delivery_uuid: string;
    };
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: WebhookDeliveryDetail;
      meta: Meta;
    };
  };
  /** List the deliveries of every subscription of the client */
  listAllWebhookDeliveries: {
    method: "GET";
    path: "/v1/webhooks/deliveries";
    pathParams: never;
    query: {
      page?: number;
      per_page?: number;
      status?: "pending" | "succeeded" | "failed" | "dead";
      event_type?:
        | "vacancy.created"
        | "vacancy.updated"
        | "vacancy.deleted"
        | "practice.created"
        | "practice.updated"
        | "practice.deleted"
        | "candidate.created"
        | "application.created"
        | "application.submitted"
        | "recruitment_case.created"
        | "system.ping";
      created_since?: string;
      created_before?: string;
    };
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Array<WebhookDelivery>;
      meta: PageMeta;
    };
  };
  /** List applications */
  listApplications: {
    method: "GET";
    path: "/v1/applications";
    pathParams: never;
    query: {
      page?: number;
      per_page?: number;
      candidate_uuid?: string;
      vacancy_uuid?: string;
      practice_id?: string;
      resolution?: "resolved" | "unresolved" | "ambiguous";
      created_since?: string;
    };
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Array<Application>;
      meta: PageMeta;
    };
  };
  /** List candidate identities */
  listCandidates: {
    method: "GET";
    path: "/v1/candidates";
    pathParams: never;
    query: {
      page?: number;
      per_page?: number;
      status?: "active" | "merged" | "inactive";
      created_since?: string;
    };
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Array<Candidate>;
      meta: PageMeta;
    };
  };
  /** List the CRM accounts (reconciliation) */
  listCrmAccounts: {
    method: "GET";
    path: "/v1/crm-mirror/accounts";
    pathParams: never;
    query: {
      per_page?: number;
      cursor?: string;
    };
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Array<CrmMirroredAccount>;
      meta: CursorPageMeta;
    };
  };
  /** List events (the events feed) */
  listEvents: {
    method: "GET";
    path: "/v1/events";
    pathParams: never;
    query: {
      per_page?: number;
      cursor?: string;
      type?: Array<
        | "vacancy.created"
        | "vacancy.updated"
        | "vacancy.deleted"
        | "practice.created"
        | "practice.updated"
        | "practice.deleted"
        | "candidate.created"
        | "application.created"
        | "application.submitted"
        | "recruitment_case.created"
      >;
      created_since?: string;
      created_before?: string;
    };
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Array<FeedEvent>;
      meta: CursorPageMeta;
    };
  };
  /** List the client's portal sessions */
  listPortalSessions: {
    method: "GET";
    path: "/v1/webhooks/portal-sessions";
    pathParams: never;
    query: {
      page?: number;
      per_page?: number;
    };
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Array<PortalSession>;
      meta: PageMeta;
    };
  };
  /** List practices */
  listPractices: {
    method: "GET";
    path: "/v1/practices";
    pathParams: never;
    query: {
      page?: number;
      per_page?: number;
      active?: boolean;
      visible?: boolean;
      language?: "nl" | "fr";
      province?: string;
      search?: string;
    };
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Array<Practice>;
      meta: PageMeta;
    };
  };
  /** List recruitment cases */
  listRecruitmentCases: {
    method: "GET";
    path: "/v1/recruitment-cases";
    pathParams: never;
    query: {
      page?: number;
      per_page?: number;
      candidate_uuid?: string;
      vacancy_uuid?: string;
      practice_id?: string;
      created_since?: string;
    };
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Array<RecruitmentCase>;
      meta: PageMeta;
    };
  };
  /** List vacancies */
  listVacancies: {
    method: "GET";
    path: "/v1/vacancies";
    pathParams: never;
    query: {
      page?: number;
      per_page?: number;
      language?: "nl" | "fr";
      province?: string;
      position?: string;
      status?: "created" | "open" | "filled";
      published?: boolean;
      practice?: string;
      updated_since?: string;
    };
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Array<Vacancy>;
      meta: PageMeta;
    };
  };
  /** List a subscription's deliveries */
  listWebhookDeliveries: {
    method: "GET";
    path: "/v1/webhooks/{webhook_uuid}/deliveries";
    pathParams: {
      webhook_uuid: string;
    };
    query: {
      page?: number;
      per_page?: number;
      status?: "pending" | "succeeded" | "failed" | "dead";
      event_type?:
        | "vacancy.created"
        | "vacancy.updated"
        | "vacancy.deleted"
        | "practice.created"
        | "practice.updated"
        | "practice.deleted"
        | "candidate.created"
        | "application.created"
        | "application.submitted"
        | "recruitment_case.created"
        | "system.ping";
      created_since?: string;
      created_before?: string;
    };
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Array<WebhookDelivery>;
      meta: PageMeta;
    };
  };
  /** The event catalogue of this environment */
  listWebhookEventTypes: {
    method: "GET";
    path: "/v1/webhooks/event-types";
    pathParams: never;
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: WebhookEventTypes;
      meta: Meta;
    };
  };
  /** List the client's webhook subscriptions */
  listWebhooks: {
    method: "GET";
    path: "/v1/webhooks";
    pathParams: never;
    query: {
      page?: number;
      per_page?: number;
    };
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Array<WebhookSubscription>;
      meta: PageMeta;
    };
  };
  /** Create or replace a CRM account */
  putCrmAccount: {
    method: "PUT";
    path: "/v1/crm-mirror/accounts/{crm_id}";
    pathParams: {
      crm_id: string;
    };
    query: never;
    headers: never;
    body: CrmAccount;
    bodyRequired: true;
    idempotencyKey: false;
    success: {
      success: true;
      data: CrmWriteResult;
      meta: Meta;
    };
  };
  /** Redeliver every failed or dead delivery of a time window */
  recoverWebhookDeliveries: {
    method: "POST";
    path: "/v1/webhooks/{webhook_uuid}/recover";
    pathParams: {
      webhook_uuid: string;
    };
    query: never;
    headers: never;
    body: WebhookRecover;
    bodyRequired: true;
    idempotencyKey: false;
    success: {
      success: true;
      data: WebhookRecovery;
      meta: Meta;
    };
  };
  /** Redeliver a failed or dead delivery */
  redeliverWebhookDelivery: {
    method: "POST";
    path: "/v1/webhooks/{webhook_uuid}/deliveries/{delivery_uuid}/redeliver";
    pathParams: {
      webhook_uuid: string;
      delivery_uuid: string;
    };
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: WebhookDelivery;
      meta: Meta;
    };
  };
  /** Revoke a portal session */
  revokePortalSession: {
    method: "DELETE";
    path: "/v1/webhooks/portal-sessions/{session_id}";
    pathParams: {
      session_id: string;
    };
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: PortalSession;
      meta: Meta;
    };
  };
  /** Rotate the signing secret */
  rotateWebhookSecret: {
    method: "POST";
    path: "/v1/webhooks/{webhook_uuid}/rotate-secret";
    pathParams: {
      webhook_uuid: string;
    };
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: WebhookSubscriptionWithSecret;
      meta: Meta;
    };
  };
  /** Record an application as submitted */
  submitApplication: {
    method: "POST";
    path: "/v1/applications/{application_uuid}/submission";
    pathParams: {
      application_uuid: string;
    };
    query: never;
    headers: never;
    body: {
      [key: string]: unknown;
    };
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: Submission;
      meta: Meta;
    };
  };
  /** Send a test event */
  testWebhook: {
    method: "POST";
    path: "/v1/webhooks/{webhook_uuid}/test";
    pathParams: {
      webhook_uuid: string;
    };
    query: never;
    headers: never;
    body: never;
    bodyRequired: false;
    idempotencyKey: false;
    success: {
      success: true;
      data: WebhookDelivery;
      meta: Meta;
    };
  };
  /** Change a webhook subscription */
  updateWebhook: {
    method: "PATCH";
    path: "/v1/webhooks/{webhook_uuid}";
    pathParams: {
      webhook_uuid: string;
    };
    query: never;
    headers: never;
    body: WebhookPatch;
    bodyRequired: true;
    idempotencyKey: false;
    success: {
      success: true;
      data: WebhookSubscription;
      meta: Meta;
    };
  };
}

/** What the client needs at run time about each operation. */
export const OPERATIONS = {
  bulkWriteCrmAccounts: {
    method: "POST",
    path: "/v1/crm-mirror/accounts:bulk",
    idempotencyKey: false,
  },
  createApplication: { method: "POST", path: "/v1/applications", idempotencyKey: true },
  createPortalSession: {
    method: "POST",
    path: "/v1/webhooks/portal-sessions",
    idempotencyKey: false,
  },
  createWebhook: { method: "POST", path: "/v1/webhooks", idempotencyKey: false },
  deleteCrmAccount: {
    method: "DELETE",
    path: "/v1/crm-mirror/accounts/{crm_id}",
    idempotencyKey: false,
  },
  deleteWebhook: { method: "DELETE", path: "/v1/webhooks/{webhook_uuid}", idempotencyKey: false },
  getApplication: {
    method: "GET",
    path: "/v1/applications/{application_uuid}",
    idempotencyKey: false,
  },
  getCandidate: { method: "GET", path: "/v1/candidates/{candidate_uuid}", idempotencyKey: false },
  getCrmAccount: { method: "GET", path: "/v1/crm-mirror/accounts/{crm_id}", idempotencyKey: false },
  getEvent: { method: "GET", path: "/v1/events/{event_uuid}", idempotencyKey: false },
  getHealthV1: { method: "GET", path: "/v1/health", idempotencyKey: false },
  getPractice: { method: "GET", path: "/v1/practices/{practice_id}", idempotencyKey: false },
  getPracticeMetadata: { method: "GET", path: "/v1/meta/practices", idempotencyKey: false },
  getRecruitmentCase: {
    method: "GET",
    path: "/v1/recruitment-cases/{recruitment_case_uuid}",
    idempotencyKey: false,
  },
  getVacancy: { method: "GET", path: "/v1/vacancies/{uuid}", idempotencyKey: false },
  getVacancyMetadata: { method: "GET", path: "/v1/meta/vacancies", idempotencyKey: false },
  getVersionV1: { method: "GET", path: "/v1/version", idempotencyKey: false },
  getWebhook: { method: "GET", path: "/v1/webhooks/{webhook_uuid}", idempotencyKey: false },
  getWebhookDelivery: {
    method: "GET",
    path: "/v1/webhooks/{webhook_uuid}/deliveries/{delivery_uuid}",
    idempotencyKey: false,
  },
  listAllWebhookDeliveries: {
    method: "GET",
    path: "/v1/webhooks/deliveries",
    idempotencyKey: false,
  },
  listApplications: { method: "GET", path: "/v1/applications", idempotencyKey: false },
  listCandidates: { method: "GET", path: "/v1/candidates", idempotencyKey: false },
  listCrmAccounts: { method: "GET", path: "/v1/crm-mirror/accounts", idempotencyKey: false },
  listEvents: { method: "GET", path: "/v1/events", idempotencyKey: false },
  listPortalSessions: {
    method: "GET",
    path: "/v1/webhooks/portal-sessions",
    idempotencyKey: false,
  },
  listPractices: { method: "GET", path: "/v1/practices", idempotencyKey: false },
  listRecruitmentCases: { method: "GET", path: "/v1/recruitment-cases", idempotencyKey: false },
  listVacancies: { method: "GET", path: "/v1/vacancies", idempotencyKey: false },
  listWebhookDeliveries: {
    method: "GET",
    path: "/v1/webhooks/{webhook_uuid}/deliveries",
    idempotencyKey: false,
  },
  listWebhookEventTypes: { method: "GET", path: "/v1/webhooks/event-types", idempotencyKey: false },
  listWebhooks: { method: "GET", path: "/v1/webhooks", idempotencyKey: false },
  putCrmAccount: { method: "PUT", path: "/v1/crm-mirror/accounts/{crm_id}", idempotencyKey: false },
  recoverWebhookDeliveries: {
    method: "POST",
    path: "/v1/webhooks/{webhook_uuid}/recover",
    idempotencyKey: false,
  },
  redeliverWebhookDelivery: {
    method: "POST",
    path: "/v1/webhooks/{webhook_uuid}/deliveries/{delivery_uuid}/redeliver",
    idempotencyKey: false,
  },
  revokePortalSession: {
    method: "DELETE",
    path: "/v1/webhooks/portal-sessions/{session_id}",
    idempotencyKey: false,
  },
  rotateWebhookSecret: {
    method: "POST",
    path: "/v1/webhooks/{webhook_uuid}/rotate-secret",
    idempotencyKey: false,
  },
  submitApplication: {
    method: "POST",
    path: "/v1/applications/{application_uuid}/submission",
    idempotencyKey: false,
  },
  testWebhook: { method: "POST", path: "/v1/webhooks/{webhook_uuid}/test", idempotencyKey: false },
  updateWebhook: { method: "PATCH", path: "/v1/webhooks/{webhook_uuid}", idempotencyKey: false },
} as const;
