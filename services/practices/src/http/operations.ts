/**
 * The practice operations (list, single read, metadata) and the CRM mirror's (production only),
 * declared once: the router mounts these paths and parses these query shapes and bodies, and the
 * OpenAPI document (tools/openapi.ts) is generated from them and the field catalogue.
 */
import { occurredAtFor } from "@svc/events";
import { z } from "zod";
import {
  catalogueSchema,
  metadataResourceSchema,
  type NamedSchema,
  type SameKeys,
  type OperationSpec,
  type TagSpec,
  type ServiceOpenApi,
} from "@svc/openapi";
import { identifierText, q } from "@svc/http";
import { PRACTICE_FIELDS } from "../domain/practice-catalogue.ts";
import type { WriteResult } from "../domain/crm-mirror/account.ts";
import type { presentMirroredAccount } from "./crm-mirror-present.ts";
import {
  bulkBody,
  crmIdSchema,
  DELETE_VERSION_HEADER,
  MAX_BULK_ACCOUNTS,
  putBody,
} from "./crm-mirror-validation.ts";

export const PRACTICES_SCOPE = "practices:read";
/**
 * The CRM mirror client's scope, for its writes and for reading them back: only that client may
 * hold it, so the mirror stays invisible to every other client.
 */
export const CRM_MIRROR_SCOPE = "crm-mirror:write";

export const PRACTICE_TAGS: TagSpec[] = [
  {
    name: "Practices",
    description: "Practices from both sources, read-only, with their metadata.",
  },
  {
    name: "CRM mirror",
    description:
      "Records the external CRM writes (production only; the dedicated CRM mirror client, scope crm-mirror:write). Writes are idempotent and ordered by the CRM's own modified_on. The same client reads them back to reconcile (one account, or all in modified_on order); no other client sees the mirror.",
  },
];

const practice: NamedSchema = {
  name: "Practice",
  description: "A practice, from the primary system or the secondary source.",
  schema: catalogueSchema(PRACTICE_FIELDS),
};

const practiceMetadata: NamedSchema = {
  name: "PracticeMetadata",
  description:
    "The practice field catalogue with the values the sources hold; practices have no reference lists.",
  schema: metadataResourceSchema(
    {
      type: "object",
      additionalProperties: false,
      properties: {},
      description: "Always empty for practices.",
    },
    occurredAtFor("practice"),
  ),
};

const LEGACY_ERRORS = { 422: ["VALIDATION_ERROR"], 503: ["LEGACY_SOURCE_UNAVAILABLE"] } as const;

/**
 * practice_id is opaque: any string the sources hold (`ACC/2009/117` arrives as `ACC%2F2009%2F117`
 * and express decodes it). What no source can hold is a bad parameter (422), not an absent
 * practice.
 */
export const practiceIdSchema = identifierText(
  z
    .string()
    .min(1, { message: "must not be empty" })
    .max(255, { message: "must be at most 255 characters" }),
);

export const listPracticesOperation = {
  operationId: "listPractices",
  method: "get",
  path: "/v1/practices",
  summary: "List practices",
  description:
    "Both sources in one list (a primary-system practice wins over a secondary one with the same id), ordered by practice_id as bytes. Filters are exact and combined (AND).",
  tag: "Practices",
  auth: { scope: PRACTICES_SCOPE },
  query: {
    page: q.page(),
    per_page: q.perPage(),
    active: q.bool().optional().meta({ description: "Only (in)active practices (see `active`)." }),
    visible: q.bool().optional().meta({ description: "Only (in)visible practices." }),
    language: q
      .oneOf(["nl", "fr"])
      .optional()
      .meta({ description: "Only practices in this language." }),
    province: q.text(100).optional().meta({
      description:
        "Exact `address.province` text (case-, accent- and space-sensitive); metadata lists the texts held.",
    }),
    search: q
      .text(255)
      .optional()
      .meta({ description: "Exact name (case-, accent- and space-sensitive); no fuzzy search." }),
  },
  responses: {
    200: { description: "A page of practices.", body: { envelope: "page", items: practice } },
  },
  errors: LEGACY_ERRORS,
} as const satisfies OperationSpec;

export const getPracticeOperation = {
  operationId: "getPractice",
  method: "get",
  path: "/v1/practices/{practice_id}",
  summary: "Read one practice",
  description: "From either source; where the id exists in both, the primary-system practice.",
  tag: "Practices",
  auth: { scope: PRACTICES_SCOPE },
  pathParams: {
    practice_id: {
      description:
        "The opaque practice_id, percent-encoded (`ACC/2009/117` as `ACC%2F2009%2F117`); at most 255 characters, no control characters (else 422).",
      schema: practiceIdSchema,
    },
  },
  query: {},
  responses: {
    200: { description: "The practice.", body: { envelope: "data", schema: practice } },
  },
  errors: { ...LEGACY_ERRORS, 404: ["NOT_FOUND"] },
} as const satisfies OperationSpec;

export const practiceMetadataOperation = {
  operationId: "getPracticeMetadata",
  method: "get",
  path: "/v1/meta/practices",
  summary: "Practice field metadata",
  description:
    "What every practice field means, with `observed_values` for the free-text fields clients filter on; no business data.",
  tag: "Practices",
  auth: { scope: PRACTICES_SCOPE },
  query: {},
  responses: {
    200: {
      description: "The metadata resource.",
      body: { envelope: "data", schema: practiceMetadata },
    },
  },
  errors: LEGACY_ERRORS,
} as const satisfies OperationSpec;

const writeResultShape = {
  crm_id: z.string(),
  applied: z.boolean().meta({
    description:
      "Whether this write changed the mirror; a stale or replayed write is acknowledged, not applied.",
  }),
  outcome: z.enum(["created", "replaced", "deleted", "duplicate", "superseded"]).meta({
    description:
      "created: no live version existed; replaced: an older version was replaced; deleted: a tombstone now holds this version; duplicate: this exact version is already stored; superseded: the stored version is newer, or equally new with other content.",
  }),
  modified_on: z.string().meta({
    format: "date-time",
    description: "The stored (winning) version after this write, UTC with microseconds.",
  }),
  deleted: z.boolean().meta({ description: "Whether the stored version is a delete (tombstone)." }),
};

/** What became of one write (domain/crm-mirror/account.ts `WriteResult`). */
export const writeResultSchema = z.strictObject(writeResultShape);
/** The bulk answer: one result per account, in request order. */
export const bulkResultSchema = z.strictObject({
  received: z.number().int(),
  applied: z.number().int(),
  results: z.array(z.strictObject({ index: z.number().int(), ...writeResultShape })),
});

// The presenters' keys are the documented ones (values are checked by the contract tests).
export const _writeResultKeys: SameKeys<WriteResult, z.output<typeof writeResultSchema>> = true;

const writeResult: NamedSchema = { name: "CrmWriteResult", schema: writeResultSchema };
const crmIdParam = {
  crm_id: {
    description:
      "The CRM's account id: 1–64 characters, no control characters, no leading or trailing whitespace.",
    schema: crmIdSchema,
  },
};
const MIRROR_ERRORS = {
  422: ["VALIDATION_ERROR"],
  503: ["SERVICE_UNAVAILABLE"],
} as const;
const PRODUCTION_ONLY = ["production"] as const;

export const putCrmAccountOperation = {
  operationId: "putCrmAccount",
  method: "put",
  path: "/v1/crm-mirror/accounts/{crm_id}",
  summary: "Create or replace a CRM account",
  description:
    "Applied only when `modified_on` is strictly newer than the stored version (a tombstone included); older writes and replays are acknowledged with `applied: false`.",
  tag: "CRM mirror",
  auth: { scope: CRM_MIRROR_SCOPE },
  environments: PRODUCTION_ONLY,
  pathParams: crmIdParam,
  query: {},
  requestBody: {
    description:
      "Every key required (null when the CRM has no value); unknown keys are 422. An optional `crm_id` must equal the path's.",
    schema: { name: "CrmAccount", schema: putBody(0) },
  },
  responses: {
    200: {
      description: "Acknowledged (replaced, duplicate or superseded).",
      body: { envelope: "data", schema: writeResult },
    },
    201: {
      description: "Created: no live version existed.",
      body: { envelope: "data", schema: writeResult },
    },
  },
  errors: { ...MIRROR_ERRORS, 413: ["PAYLOAD_TOO_LARGE"], 415: ["UNSUPPORTED_MEDIA_TYPE"] },
} as const satisfies OperationSpec;

export const deleteCrmAccountOperation = {
  operationId: "deleteCrmAccount",
  method: "delete",
  path: "/v1/crm-mirror/accounts/{crm_id}",
  summary: "Delete a CRM account",
  description:
    "Stores a tombstone (also for an unknown account, so a delayed older create stays deleted).",
  tag: "CRM mirror",
  auth: { scope: CRM_MIRROR_SCOPE },
  environments: PRODUCTION_ONLY,
  pathParams: crmIdParam,
  query: {},
  headers: {
    [DELETE_VERSION_HEADER]: {
      description:
        "The CRM's modification time of the delete: ISO 8601 with seconds and an offset (a header, because some proxies drop DELETE bodies).",
      schema: { type: "string", format: "date-time" },
      required: true,
    },
  },
  responses: {
    200: { description: "Acknowledged.", body: { envelope: "data", schema: writeResult } },
  },
  errors: MIRROR_ERRORS,
} as const satisfies OperationSpec;

export const bulkCrmAccountsOperation = {
  operationId: "bulkWriteCrmAccounts",
  method: "post",
  path: "/v1/crm-mirror/accounts:bulk",
  summary: "Create or replace many CRM accounts",
  description: `1 to ${MAX_BULK_ACCOUNTS} accounts applied in order in one transaction (all or nothing); each write is judged as if it arrived alone. Any bad record: 422 listing every bad field as \`accounts[<index>].<path>\`.`,
  tag: "CRM mirror",
  auth: { scope: CRM_MIRROR_SCOPE },
  environments: PRODUCTION_ONLY,
  query: {},
  requestBody: { schema: { name: "CrmAccountsBulk", schema: bulkBody(0) } },
  responses: {
    200: {
      description: "One result per account.",
      body: { envelope: "data", schema: { name: "CrmBulkResult", schema: bulkResultSchema } },
    },
  },
  errors: {
    422: ["VALIDATION_ERROR"],
    413: ["PAYLOAD_TOO_LARGE"],
    415: ["UNSUPPORTED_MEDIA_TYPE"],
    503: ["SERVICE_UNAVAILABLE"],
  },
} as const satisfies OperationSpec;

const nullableText = () => z.string().nullable();
const mirroredAccountShape = {
  crm_id: z.string(),
  name: nullableText(),
  alias: nullableText(),
  organisation_type: nullableText(),
  language: nullableText(),
  identifiers: z.strictObject({ vat: nullableText() }),
  address: z.strictObject({
    street: nullableText(),
    postal_code: nullableText(),
    city: nullableText(),
    province: nullableText(),
    country: nullableText(),
  }),
  contact: z.strictObject({ email: nullableText(), phone: nullableText() }),
  period: z.strictObject({
    start_date: z.string().meta({ format: "date" }).nullable(),
    stop_date: z.string().meta({ format: "date" }).nullable(),
  }),
  modified_on: z.string().meta({
    format: "date-time",
    description: "The stored (winning) version, UTC with microseconds.",
  }),
  deleted: z.boolean().meta({
    description: "A tombstone: the account was deleted at `modified_on`; every field is null.",
  }),
};
const mirroredAccountSchema = z.strictObject(mirroredAccountShape);
export const _mirroredAccountKeys: SameKeys<
  ReturnType<typeof presentMirroredAccount>,
  z.output<typeof mirroredAccountSchema>
> = true;
const mirroredAccount: NamedSchema = {
  name: "CrmMirroredAccount",
  description: "An account as the mirror holds it: the last applied write, or its tombstone.",
  schema: mirroredAccountSchema,
};

export const getCrmAccountOperation = {
  operationId: "getCrmAccount",
  method: "get",
  path: "/v1/crm-mirror/accounts/{crm_id}",
  summary: "Read one CRM account back",
  description:
    "The stored version, a tombstone (`deleted: true`) included; 404 when no write for this id was ever applied.",
  tag: "CRM mirror",
  auth: { scope: CRM_MIRROR_SCOPE },
  environments: PRODUCTION_ONLY,
  pathParams: crmIdParam,
  query: {},
  responses: {
    200: { description: "The account.", body: { envelope: "data", schema: mirroredAccount } },
  },
  errors: { ...MIRROR_ERRORS, 404: ["NOT_FOUND"] },
} as const satisfies OperationSpec;

export const listCrmAccountsOperation = {
  operationId: "listCrmAccounts",
  method: "get",
  path: "/v1/crm-mirror/accounts",
  summary: "List the CRM accounts (reconciliation)",
  description:
    "Every stored account, tombstones included, oldest `modified_on` first (ties by `crm_id`). Follow `meta.pagination.next_cursor` until `has_more` is false. A write applied during the walk with a `modified_on` before the cursor's position lands behind it: reconcile by walking from the start.",
  tag: "CRM mirror",
  auth: { scope: CRM_MIRROR_SCOPE },
  environments: PRODUCTION_ONLY,
  query: {
    per_page: q.perPage(),
    cursor: q
      .text(1_024)
      .optional()
      .meta({ description: "`next_cursor` of the previous page; absent: the first page." }),
  },
  responses: {
    200: {
      description: "A page of accounts.",
      body: { envelope: "cursorPage", items: mirroredAccount },
    },
  },
  errors: { 422: ["VALIDATION_ERROR"], 503: ["SERVICE_UNAVAILABLE"] },
} as const satisfies OperationSpec;

export const PRACTICE_OPERATIONS: ReadonlyArray<OperationSpec> = [
  listPracticesOperation,
  getPracticeOperation,
  practiceMetadataOperation,
];
export const CRM_MIRROR_OPERATIONS: ReadonlyArray<OperationSpec> = [
  listCrmAccountsOperation,
  getCrmAccountOperation,
  putCrmAccountOperation,
  deleteCrmAccountOperation,
  bulkCrmAccountsOperation,
];

/** This service's part of the OpenAPI document (tools/openapi.ts). */
export const OPENAPI: ServiceOpenApi = {
  tags: PRACTICE_TAGS,
  operations: [...PRACTICE_OPERATIONS, ...CRM_MIRROR_OPERATIONS],
};
