/**
 * The webhook subscription operations (README "API"), declared once: the router mounts
 * these paths with these scopes, parses these query shapes and bodies, and the OpenAPI document
 * (tools/openapi.ts) is generated from them. The response schemas state the presenters' shapes
 * (present.ts); compile-time checks keep their keys and enums equal.
 */
import { z } from "zod";
import { q } from "@svc/http";
import { EVENT_TYPES } from "@svc/events";
import {
  doc,
  toSchema,
  type NamedSchema,
  type OperationSpec,
  type SameKeys,
  type SameUnion,
  type TagSpec,
  type ServiceOpenApi,
  uuidPathParams,
} from "@svc/openapi";
import {
  DELIVERY_STATUSES,
  DISABLED_REASONS,
  type AttemptOutcome,
  type ErrorClass,
  type FailureReason,
} from "../domain/model.ts";
import { createBody, patchBody, recoverBody } from "./bodies.ts";
import type {
  presentAttempt,
  presentDelivery,
  presentEventType,
  presentRecovery,
  presentSubscription,
} from "./present.ts";
import { EVENT_OPERATIONS, EVENT_TAGS } from "./events-operations.ts";
import { PORTAL_SESSION_OPERATIONS, PORTAL_TAG } from "./portal-operations.ts";

export const WEBHOOK_TAGS: TagSpec[] = [
  {
    name: "Webhooks",
    description:
      "A client's webhook subscriptions and their deliveries. A client sees only its own subscriptions; anything else is 404. URLs must be public https (no localhost, private, link-local or metadata addresses, also through DNS); redirects are not followed.",
  },
];

const FAILURE_REASONS = [
  "http_status",
  "blocked_url",
  "subscription_disabled",
  "attempts_exhausted",
] as const;
const ATTEMPT_OUTCOMES = ["succeeded", "retrying", "failed", "dead"] as const;
const ERROR_CLASSES = [
  "http_redirect",
  "http_client_error",
  "http_retryable_status",
  "http_server_error",
  "http_other_status",
  "timeout",
  "connection",
  "tls",
  "dns",
  "blocked_url",
] as const;
export const _failureReasons: SameUnion<FailureReason, (typeof FAILURE_REASONS)[number]> = true;
export const _attemptOutcomes: SameUnion<AttemptOutcome, (typeof ATTEMPT_OUTCOMES)[number]> = true;
export const _errorClasses: SameUnion<ErrorClass, (typeof ERROR_CLASSES)[number]> = true;

const subscriptionFields = {
  webhook_uuid: doc.uuid(),
  url: z.string().meta({
    format: "uri",
    description:
      "The endpoint, stored normalised (lower-case host, default port dropped, dot segments resolved).",
  }),
  event_types: z.array(z.enum(EVENT_TYPES)),
  enabled: z.boolean(),
  disabled_reason: z.enum(DISABLED_REASONS).nullable().meta({
    description:
      "Null while enabled. `requested`: disabled by its owner (`enabled: false`). `endpoint_failing`: disabled automatically after every attempt failed for a period (5 days unless the installation says otherwise) with no success since; `enabled: true` enables it again.",
  }),
  disabled_at: doc
    .instant()
    .nullable()
    .meta({ description: "When it was disabled; null while enabled." }),
  secret_rotated_at: doc.instant().nullable(),
  previous_secret_expires_at: doc.instant().nullable().meta({
    description:
      "After a rotation: until this instant the previous secret also signs (a second signature).",
  }),
  created_at: doc.instant(),
  updated_at: doc.instant(),
  warning: z.string().optional().meta({
    description:
      "Present only when `url` is on the loopback interface (`localhost`, 127.0.0.0/8, ::1), which only a local stack started with `WEBHOOK_ALLOW_LOOPBACK=true` accepts: deliveries then go to the machine the service runs on. The sandbox and production refuse such URLs.",
  }),
};
const subscriptionSchema = z.strictObject(subscriptionFields);
const withSecretSchema = z.strictObject({
  ...subscriptionFields,
  secret: z.string().meta({
    description:
      "The signing secret (`whsec_…`), shown in this answer only; it cannot be requested again.",
  }),
});
const deliveryFields = {
  delivery_uuid: doc.uuid(),
  webhook_uuid: doc.uuid(),
  event_uuid: doc.uuid(),
  event_type: z.enum(EVENT_TYPES),
  status: z.enum(DELIVERY_STATUSES).meta({
    description:
      "pending (attempts to come), succeeded (a 2xx), failed (final, not retried), dead (six failed attempts in the round).",
  }),
  failure_reason: z.enum(FAILURE_REASONS).nullable(),
  round: z
    .number()
    .int()
    .min(1)
    .meta({ description: "Redelivery starts a new round with the full schedule." }),
  attempt_count: z.number().int().min(0).meta({ description: "Attempts over all rounds." }),
  round_attempt_count: z.number().int().min(0),
  last_status_code: z.number().int().nullable(),
  last_attempt_at: doc.instant().nullable(),
  next_attempt_at: doc.instant().nullable().meta({ description: "Null unless pending." }),
  created_at: doc.instant(),
  updated_at: doc.instant(),
};
const deliverySchema = z.strictObject(deliveryFields);
const attemptSchema = z.strictObject({
  number: z.number().int().min(1).meta({ description: "Counts across rounds." }),
  round: z.number().int().min(1),
  attempted_at: doc.instant(),
  duration_ms: z.number().int().min(0),
  status_code: z.number().int().nullable(),
  outcome: z.enum(ATTEMPT_OUTCOMES),
  error_class: z.enum(ERROR_CLASSES).nullable(),
  error_detail: z.string().nullable().meta({
    description: "Error names and codes of a transport failure; never headers or bodies.",
  }),
  response_sample: z
    .string()
    .nullable()
    .meta({ description: "The start of the endpoint's answer, at most 512 characters." }),
});
const deliveryDetailSchema = z.strictObject({
  ...deliveryFields,
  attempts: z.array(attemptSchema),
});

// The presenters return exactly these keys (present.ts); a drift is a compile error.
export const _subscriptionKeys: SameKeys<
  ReturnType<typeof presentSubscription>,
  z.output<typeof subscriptionSchema>
> = true;
export const _deliveryKeys: SameKeys<
  ReturnType<typeof presentDelivery>,
  z.output<typeof deliverySchema>
> = true;
export const _attemptKeys: SameKeys<
  ReturnType<typeof presentAttempt>,
  z.output<typeof attemptSchema>
> = true;

const subscription: NamedSchema = { name: "WebhookSubscription", schema: subscriptionSchema };
const withSecret: NamedSchema = {
  name: "WebhookSubscriptionWithSecret",
  description: "A subscription with its signing secret (create and rotate-secret only).",
  schema: withSecretSchema,
};
const delivery: NamedSchema = { name: "WebhookDelivery", schema: deliverySchema };
const deliveryDetail: NamedSchema = {
  name: "WebhookDeliveryDetail",
  description: "A delivery with its attempts.",
  schema: deliveryDetailSchema,
};

/**
 * The create body with the event types spelled out (the service checks them against the
 * environment's catalogue).
 */
function withEventTypeEnum(schema: z.ZodType): Record<string, unknown> {
  const json = toSchema(schema, "input");
  const eventTypes = (json.properties as Record<string, Record<string, unknown>>)
    .event_types as Record<string, unknown>;
  eventTypes.items = { type: "string", enum: [...EVENT_TYPES] };
  eventTypes.description =
    "Event types of this environment's catalogue (this document's `webhooks`); another is 422. Duplicates are collapsed.";
  return json;
}

const webhookPath = uuidPathParams({ webhook_uuid: "subscription" });
const deliveryPath = uuidPathParams({ webhook_uuid: "subscription", delivery_uuid: "delivery" });
const noStore = {
  "Cache-Control": {
    description: "The answer holds a secret.",
    schema: { const: "no-store" },
    required: true,
  },
};
const page = { page: q.page(), per_page: q.perPage() };
const BODY_ERRORS = {
  413: ["PAYLOAD_TOO_LARGE"],
  415: ["UNSUPPORTED_MEDIA_TYPE"],
  422: ["VALIDATION_ERROR"],
} as const;

export const createWebhookOperation = {
  operationId: "createWebhook",
  method: "post",
  path: "/v1/webhooks",
  summary: "Create a webhook subscription",
  description:
    "The answer carries the signing secret exactly once. The URL is checked (public https, resolved addresses included) now and before every delivery.",
  tag: "Webhooks",
  auth: { scope: "webhooks:write" },
  requestBody: { schema: { name: "WebhookCreate", schema: withEventTypeEnum(createBody) } },
  responses: {
    201: {
      description: "Created.",
      body: { envelope: "data", schema: withSecret },
      headers: {
        ...noStore,
        Location: {
          description: "The subscription's path.",
          schema: { type: "string", pattern: "^/v1/webhooks/" },
          required: true,
        },
      },
    },
  },
  errors: BODY_ERRORS,
} as const satisfies OperationSpec;

export const listWebhooksOperation = {
  operationId: "listWebhooks",
  method: "get",
  path: "/v1/webhooks",
  summary: "List the client's webhook subscriptions",
  description: "Oldest first.",
  tag: "Webhooks",
  auth: { scope: "webhooks:read" },
  query: page,
  responses: {
    200: {
      description: "A page of subscriptions.",
      body: { envelope: "page", items: subscription },
    },
  },
  errors: { 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const getWebhookOperation = {
  operationId: "getWebhook",
  method: "get",
  path: "/v1/webhooks/{webhook_uuid}",
  summary: "Read one webhook subscription",
  description: "Never with its secret.",
  tag: "Webhooks",
  auth: { scope: "webhooks:read" },
  pathParams: webhookPath,
  responses: {
    200: { description: "The subscription.", body: { envelope: "data", schema: subscription } },
  },
  errors: { 404: ["NOT_FOUND"], 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const updateWebhookOperation = {
  operationId: "updateWebhook",
  method: "patch",
  path: "/v1/webhooks/{webhook_uuid}",
  summary: "Change a webhook subscription",
  description: "Any of url, event_types, enabled (at least one).",
  tag: "Webhooks",
  auth: { scope: "webhooks:write" },
  pathParams: webhookPath,
  requestBody: { schema: { name: "WebhookPatch", schema: withEventTypeEnum(patchBody) } },
  responses: {
    200: {
      description: "The changed subscription.",
      body: { envelope: "data", schema: subscription },
    },
  },
  errors: { ...BODY_ERRORS, 404: ["NOT_FOUND"] },
} as const satisfies OperationSpec;

export const deleteWebhookOperation = {
  operationId: "deleteWebhook",
  method: "delete",
  path: "/v1/webhooks/{webhook_uuid}",
  summary: "Delete a webhook subscription",
  description:
    "Deletes the subscription and its delivery records; a pending delivery stops before its next attempt.",
  tag: "Webhooks",
  auth: { scope: "webhooks:write" },
  pathParams: webhookPath,
  responses: {
    200: {
      description: "Deleted.",
      body: {
        envelope: "data",
        schema: {
          name: "WebhookDeleted",
          schema: z.strictObject({ webhook_uuid: doc.uuid(), deleted: z.literal(true) }),
        },
      },
    },
  },
  errors: { 404: ["NOT_FOUND"], 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const testWebhookOperation = {
  operationId: "testWebhook",
  method: "post",
  path: "/v1/webhooks/{webhook_uuid}/test",
  summary: "Send a test event",
  description:
    "Queues a `system.ping` delivery to the subscription's endpoint (409 CONFLICT when the subscription is disabled).",
  tag: "Webhooks",
  auth: { scope: "webhooks:write" },
  pathParams: webhookPath,
  responses: {
    202: {
      description: "The new delivery, pending.",
      body: { envelope: "data", schema: delivery },
    },
  },
  errors: { 404: ["NOT_FOUND"], 409: ["CONFLICT"], 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const rotateWebhookSecretOperation = {
  operationId: "rotateWebhookSecret",
  method: "post",
  path: "/v1/webhooks/{webhook_uuid}/rotate-secret",
  summary: "Rotate the signing secret",
  description:
    "A new secret, shown once; the previous one keeps signing (a second signature) until `previous_secret_expires_at`.",
  tag: "Webhooks",
  auth: { scope: "webhooks:write" },
  pathParams: webhookPath,
  responses: {
    200: {
      description: "The subscription with its new secret.",
      body: { envelope: "data", schema: withSecret },
      headers: noStore,
    },
  },
  errors: { 404: ["NOT_FOUND"], 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

/** The delivery lists' filters: status, event type, creation time. */
const deliveryFilters = {
  status: q
    .oneOf(DELIVERY_STATUSES)
    .optional()
    .meta({ description: "Only deliveries with this status." }),
  event_type: q
    .oneOf(EVENT_TYPES as unknown as readonly [string, ...string[]])
    .optional()
    .meta({ description: "Only deliveries of this event type." }),
  created_since: q.dateOrDateTime().optional().meta({
    description:
      "Only deliveries created at or after this instant (date-time with offset, or a date: midnight UTC).",
  }),
  created_before: q
    .dateOrDateTime()
    .optional()
    .meta({ description: "Only deliveries created before this instant (as `created_since`)." }),
};

export const listDeliveriesOperation = {
  operationId: "listWebhookDeliveries",
  method: "get",
  path: "/v1/webhooks/{webhook_uuid}/deliveries",
  summary: "List a subscription's deliveries",
  description: "Newest first, without attempts.",
  tag: "Webhooks",
  auth: { scope: "webhooks:read" },
  pathParams: webhookPath,
  query: { ...page, ...deliveryFilters },
  responses: {
    200: { description: "A page of deliveries.", body: { envelope: "page", items: delivery } },
  },
  errors: { 404: ["NOT_FOUND"], 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const listAllDeliveriesOperation = {
  operationId: "listAllWebhookDeliveries",
  method: "get",
  path: "/v1/webhooks/deliveries",
  summary: "List the deliveries of every subscription of the client",
  description: "Newest first, without attempts; `webhook_uuid` names each one's subscription.",
  tag: "Webhooks",
  auth: { scope: "webhooks:read" },
  query: { ...page, ...deliveryFilters },
  responses: {
    200: { description: "A page of deliveries.", body: { envelope: "page", items: delivery } },
  },
  errors: { 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const getDeliveryOperation = {
  operationId: "getWebhookDelivery",
  method: "get",
  path: "/v1/webhooks/{webhook_uuid}/deliveries/{delivery_uuid}",
  summary: "Read one delivery with its attempts",
  description:
    "Every attempt with its status code, duration, error class and a short sample of the answer.",
  tag: "Webhooks",
  auth: { scope: "webhooks:read" },
  pathParams: deliveryPath,
  responses: {
    200: { description: "The delivery.", body: { envelope: "data", schema: deliveryDetail } },
  },
  errors: { 404: ["NOT_FOUND"], 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const redeliverOperation = {
  operationId: "redeliverWebhookDelivery",
  method: "post",
  path: "/v1/webhooks/{webhook_uuid}/deliveries/{delivery_uuid}/redeliver",
  summary: "Redeliver a failed or dead delivery",
  description:
    "Starts a new round with the full retry schedule (409 CONFLICT unless the delivery is failed or dead, or when the subscription is disabled).",
  tag: "Webhooks",
  auth: { scope: "webhooks:write" },
  pathParams: deliveryPath,
  responses: {
    202: {
      description: "The delivery in its new round, pending.",
      body: { envelope: "data", schema: delivery },
    },
  },
  errors: { 404: ["NOT_FOUND"], 409: ["CONFLICT"], 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

// Bulk recovery (POST /v1/webhooks/{webhook_uuid}/recover).
const recoverySchema = z.strictObject({
  webhook_uuid: doc.uuid(),
  since: doc.instant(),
  until: doc.instant().meta({ description: "The window's end: as sent, or the time of the call." }),
  queued: z.number().int().min(0).meta({
    description: "Failed and dead deliveries of the window that this call made pending again.",
  }),
});
export const _recoveryKeys: SameKeys<
  ReturnType<typeof presentRecovery>,
  z.output<typeof recoverySchema>
> = true;

export const recoverWebhookOperation = {
  operationId: "recoverWebhookDeliveries",
  method: "post",
  path: "/v1/webhooks/{webhook_uuid}/recover",
  summary: "Redeliver every failed or dead delivery of a time window",
  description:
    "Each failed or dead delivery created in the window (`since` ≤ `created_at` < `until`) starts a new round with the full retry schedule, as a single redelivery would. They are queued like any other delivery, so the subscription's concurrency limit paces them. A delivery already pending is not queued again: repeating the call while they run queues nothing twice. The window is checked against the service's clock at the call, which JSON Schema cannot state: `since` at or after that time minus the retention period (`WEBHOOK_RETENTION_DAYS`, 30 days unless the installation sets another; 0: no limit), else 422 naming `since`; `until` later than `since`, else 422 naming `until`; without `until`, `since` before the time of the call, else 422 naming `since`. 409 CONFLICT when the subscription is disabled.",
  tag: "Webhooks",
  auth: { scope: "webhooks:write" },
  pathParams: webhookPath,
  requestBody: {
    schema: { name: "WebhookRecover", schema: toSchema(recoverBody, "input") },
  },
  responses: {
    202: {
      description: "How many deliveries were queued.",
      body: {
        envelope: "data",
        schema: { name: "WebhookRecovery", schema: recoverySchema },
      },
    },
  },
  errors: { ...BODY_ERRORS, 404: ["NOT_FOUND"], 409: ["CONFLICT"] },
} as const satisfies OperationSpec;

// The event catalogue of this environment (GET /v1/webhooks/event-types).
const eventTypeSchema = z.strictObject({
  event_type: z.enum(EVENT_TYPES),
  entity_type: z.string(),
  description: z.string(),
  occurred_at: z
    .string()
    .meta({ description: "What the payload's `occurred_at` means for this event type." }),
  schema: z
    .record(z.string(), z.unknown())
    .meta({ description: "The payload's JSON Schema (2020-12)." }),
  example: z.record(z.string(), z.unknown()).meta({ description: "An example payload." }),
});
export const _eventTypeKeys: SameKeys<
  ReturnType<typeof presentEventType>,
  z.output<typeof eventTypeSchema>
> = true;

export const listEventTypesOperation = {
  operationId: "listWebhookEventTypes",
  method: "get",
  path: "/v1/webhooks/event-types",
  summary: "The event catalogue of this environment",
  description:
    "Every event type a subscription of this environment can select, with what it means, what its `occurred_at` is, its payload's JSON Schema and an example payload.",
  tag: "Webhooks",
  auth: { scope: "webhooks:read" },
  responses: {
    200: {
      description: "The event types, in catalogue order.",
      body: {
        envelope: "data",
        schema: {
          name: "WebhookEventTypes",
          schema: z.array(eventTypeSchema),
        },
      },
    },
  },
  // An unknown query parameter.
  errors: { 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const WEBHOOK_OPERATIONS: ReadonlyArray<OperationSpec> = [
  listEventTypesOperation,
  createWebhookOperation,
  listWebhooksOperation,
  getWebhookOperation,
  updateWebhookOperation,
  deleteWebhookOperation,
  testWebhookOperation,
  rotateWebhookSecretOperation,
  listDeliveriesOperation,
  listAllDeliveriesOperation,
  getDeliveryOperation,
  redeliverOperation,
  recoverWebhookOperation,
];

/** This service's part of the OpenAPI document (tools/openapi.ts). */
export const OPENAPI: ServiceOpenApi = {
  tags: [...WEBHOOK_TAGS, PORTAL_TAG, ...EVENT_TAGS],
  operations: [...WEBHOOK_OPERATIONS, ...PORTAL_SESSION_OPERATIONS, ...EVENT_OPERATIONS],
};
