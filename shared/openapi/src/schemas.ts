/**
 * The shapes every operation shares (the contract's envelope, errors, metadata and event payload)
 * and the conversions from the catalogues. Each is derived from the constants the code uses
 * (API_VERSION, MAX_PER_PAGE, KINDS, SOURCES, the event catalogue), not restated.
 */
import { z } from "zod";
import { KINDS, SOURCES, toJsonSchema, type FieldSpec } from "@svc/catalogue";
import { ERROR_CODES } from "@svc/errors";
import { EVENT_CATALOGUE, EVENT_VERSION, OCCURRED_AT, type EventType } from "@svc/events";
import { API_VERSION, MAX_PER_PAGE } from "@svc/http";
import type { HeaderSpec, JsonSchema } from "./operation.ts";

/** Every `error.code` the API answers, with its status and meaning (@svc/errors). */
export { ERROR_CODES, type ErrorCode } from "@svc/errors";

/** Response headers that come with an error status. */
export const ERROR_HEADERS: Partial<Record<number, Record<string, HeaderSpec>>> = {
  401: {
    "WWW-Authenticate": {
      description:
        'Bearer challenge: `Bearer realm="integration-service"`, with `error="invalid_token"` for a token that is invalid, expired or revoked.',
      schema: { type: "string", pattern: "^Bearer " },
      required: true,
    },
  },
  403: {
    "WWW-Authenticate": {
      description:
        'Bearer challenge naming the missing scope: `error="insufficient_scope", scope="…"`.',
      schema: { type: "string", pattern: "^Bearer .*insufficient_scope" },
      required: true,
    },
  },
  405: {
    Allow: {
      description: "The methods this path takes.",
      schema: { type: "string" },
      required: true,
    },
  },
  409: {
    "Retry-After": {
      description: "Seconds to wait (IDEMPOTENT_REQUEST_IN_PROGRESS only).",
      schema: { type: "string", pattern: "^\\d+$" },
    },
  },
  503: {
    "Retry-After": {
      description: "Seconds to wait before retrying.",
      schema: { type: "string", pattern: "^\\d+$" },
    },
  },
};

/**
 * Every response of the API carries the request id (the envelope's meta.request_id, also for
 * non-envelope answers).
 */
export const REQUEST_ID_HEADER: Record<string, HeaderSpec> = {
  "X-Request-Id": {
    description:
      "The request's id (equal to meta.request_id in envelope answers); a UUID-shaped X-Request-Id sent by the caller is kept.",
    schema: { type: "string", format: "uuid" },
    required: true,
  },
};

export const requestIdSchema: JsonSchema = {
  type: "string",
  format: "uuid",
  description: "Per request; also in the X-Request-Id response header.",
};

export const paginationSchema: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["page", "per_page", "total", "total_pages"],
  properties: {
    page: { type: "integer", minimum: 1, description: "Current page, from 1." },
    per_page: {
      type: "integer",
      minimum: 1,
      maximum: MAX_PER_PAGE,
      description: `Page size (at most ${MAX_PER_PAGE}).`,
    },
    total: { type: "integer", minimum: 0, description: "Total items over all pages." },
    total_pages: { type: "integer", minimum: 0, description: "Total pages." },
  },
};

/** The pagination of a list walked by cursor: the contract's four fields and where to go on. */
export const cursorPaginationSchema: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: [...(paginationSchema.required as string[]), "next_cursor", "has_more"],
  properties: {
    ...(paginationSchema.properties as Record<string, JsonSchema>),
    page: {
      type: "integer",
      minimum: 1,
      description: "Pages read so far in this walk, this one included (1 without a cursor).",
    },
    next_cursor: {
      type: "string",
      description:
        "Opaque; pass it as `cursor` to read on from here. Always present: an empty page's cursor is where new items will appear.",
    },
    has_more: {
      type: "boolean",
      description: "More items can be read now; false: the walk has caught up.",
    },
  },
};

export function metaSchema(withPagination: boolean | "cursor"): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    request_id: { $ref: "#/components/schemas/RequestId" },
    api_version: { const: API_VERSION, description: "The API version." },
  };
  if (withPagination === "cursor")
    properties.pagination = { $ref: "#/components/schemas/CursorPagination" };
  else if (withPagination) properties.pagination = { $ref: "#/components/schemas/Pagination" };
  return {
    type: "object",
    additionalProperties: false,
    required: Object.keys(properties),
    properties,
  };
}

/**
 * The contract's error envelope: `success` false, `error.code`, `error.message`, `meta`; validation
 * errors add `details`.
 */
export const errorEnvelopeSchema: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["success", "error", "meta"],
  properties: {
    success: { const: false },
    error: {
      type: "object",
      additionalProperties: false,
      required: ["code", "message"],
      properties: {
        code: {
          type: "string",
          enum: Object.keys(ERROR_CODES),
          description: "Stable machine-readable code.",
        },
        message: { type: "string", description: "Human text; may change." },
        details: {
          type: "array",
          description: "VALIDATION_ERROR only: one entry per bad parameter, header or body field.",
          items: {
            type: "object",
            additionalProperties: false,
            required: ["field", "message"],
            properties: {
              field: {
                type: "string",
                description:
                  "The parameter, header or body field (dotted path, `accounts[3].name` for list items).",
              },
              message: { type: "string" },
            },
          },
        },
      },
    },
    meta: { $ref: "#/components/schemas/Meta" },
  },
};

/** Success envelope around `data`. */
export function envelopeSchema(data: JsonSchema, page: boolean | "cursor"): JsonSchema {
  const meta = page === "cursor" ? "CursorPageMeta" : page ? "PageMeta" : "Meta";
  return {
    type: "object",
    additionalProperties: false,
    required: ["success", "data", "meta"],
    properties: {
      success: { const: true },
      data: page ? { type: "array", items: data } : data,
      meta: { $ref: `#/components/schemas/${meta}` },
    },
  };
}

const FORMAT_OF_KIND: Partial<Record<FieldSpec["kind"], string>> = {
  date: "date",
  date_time: "date-time",
};

/**
 * The catalogue's JSON Schema (@svc/catalogue) with the formats its kinds promise (date, date_time)
 * and each field's example.
 */
export function catalogueSchema(fields: ReadonlyArray<FieldSpec>): JsonSchema {
  const schema = toJsonSchema(fields);
  for (const field of fields) {
    let node = schema;
    for (const part of field.path.split("."))
      node = (node.properties as Record<string, JsonSchema>)[part] as JsonSchema;
    const format = FORMAT_OF_KIND[field.kind];
    if (format) node.format = format;
    node.examples = [field.example];
  }
  return schema;
}

const nullOr = (schema: JsonSchema): JsonSchema => ({ oneOf: [{ type: "null" }, schema] });

const fieldMetadataSchema: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: [
    "path",
    "json_type",
    "nullable",
    "kind",
    "description",
    "source",
    "picklist",
    "allowed_values",
    "reference_list",
    "references",
    "observed_values",
    "example",
  ],
  properties: {
    path: { type: "string", description: "Dotted path of the field in the resource." },
    json_type: {
      oneOf: [{ type: "string" }, { type: "array", items: { type: "string" } }],
      description: 'JSON type, or [type, "null"] when nullable.',
    },
    nullable: { type: "boolean" },
    kind: {
      type: "string",
      enum: Object.keys(KINDS),
      description: "Field kind; `kinds` describes each.",
    },
    description: { type: "string" },
    source: {
      type: "string",
      enum: Object.keys(SOURCES),
      description: "Where the value comes from; `sources` describes each.",
    },
    picklist: { type: "boolean", description: "True for enum and reference_list fields." },
    allowed_values: nullOr({
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["value", "description"],
        properties: { value: { type: "string" }, description: { type: "string" } },
      },
    }),
    reference_list: {
      type: ["string", "null"],
      description: "The reference list (in `reference_lists`) holding this field's codes.",
    },
    references: {
      type: ["string", "null"],
      description: "The resource field this one points to (`practices.practice_id`).",
    },
    observed_values: nullOr({
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["value", "note"],
        properties: { value: { type: "string" }, note: { type: "string" } },
      },
    }),
    example: { description: "An example value of the field (any JSON type)." },
  },
};

const describedKeys = (table: Record<string, string>): JsonSchema => ({
  type: "object",
  additionalProperties: false,
  required: Object.keys(table),
  properties: Object.fromEntries(Object.keys(table).map((key) => [key, { type: "string" }])),
});

/** The `events` member: per event type of the resource, what its `occurred_at` means. */
const eventsMetadata = (events: Readonly<Record<string, string>>): JsonSchema => ({
  type: "object",
  description: "The resource's webhook event types, each with what its `occurred_at` means.",
  additionalProperties: false,
  required: Object.keys(events),
  properties: Object.fromEntries(
    Object.entries(events).map(([type, meaning]) => [
      type,
      {
        type: "object",
        additionalProperties: false,
        required: ["occurred_at"],
        properties: { occurred_at: { type: "string", description: meaning } },
      },
    ]),
  ),
});

/**
 * The metadata resource; `referenceLists` is the schema of its `reference_lists` object, `events`
 * the resource's event types with what their `occurred_at` means.
 */
export function metadataResourceSchema(
  referenceLists: JsonSchema,
  events: Readonly<Record<string, string>> = {},
): JsonSchema {
  return {
    type: "object",
    additionalProperties: false,
    required: [
      "resource",
      "endpoint",
      "identifier",
      "schema_version",
      "fields",
      "reference_lists",
      "kinds",
      "sources",
      "events",
    ],
    properties: {
      resource: { type: "string" },
      endpoint: { type: "string", description: "The resource's list endpoint." },
      identifier: { type: "string", description: "Name of the id field." },
      schema_version: {
        type: "integer",
        minimum: 1,
        description: "Version of the resource's field schema.",
      },
      fields: { type: "array", items: { $ref: "#/components/schemas/FieldMetadata" } },
      reference_lists: referenceLists,
      kinds: describedKeys(KINDS),
      sources: describedKeys(SOURCES),
      events: eventsMetadata(events),
    },
  };
}

export const FIELD_METADATA_SCHEMA = fieldMetadataSchema;

/** The webhook payload for one event type (shared/events `buildEvent`). */
export function eventPayloadSchema(type: EventType): JsonSchema {
  return {
    type: "object",
    additionalProperties: false,
    required: ["event_uuid", "event_type", "event_version", "occurred_at", "entity", "links"],
    properties: {
      event_uuid: {
        type: "string",
        format: "uuid",
        description: "Unique per event; also X-SVC-Event-Id. Deduplicate on it.",
      },
      event_type: { const: type },
      event_version: { const: EVENT_VERSION, description: "Payload version." },
      occurred_at: {
        type: "string",
        format: "date-time",
        description: `ISO 8601 with offset. ${OCCURRED_AT[type]}`,
      },
      entity: {
        type: "object",
        additionalProperties: false,
        required: ["type", "id"],
        properties: {
          type: { const: EVENT_CATALOGUE[type] },
          id: { type: "string", minLength: 1, description: "Identifier of the entity." },
        },
      },
      links: {
        type: "object",
        additionalProperties: false,
        required: ["self"],
        properties: {
          self: {
            type: "string",
            format: "uri",
            description: "Where the entity's current state is fetched (with a token).",
          },
        },
      },
    },
  };
}

/** Zod helpers for the services' response schemas: instants and ids as the responses write them. */
export const doc = {
  /** ISO 8601 with offset, as `isoWithOffset` writes it. */
  instant: () => z.string().meta({ format: "date-time" }),
  uuid: () => z.string().meta({ format: "uuid" }),
};
