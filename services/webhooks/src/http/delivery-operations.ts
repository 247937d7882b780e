/**
 * The delivery operations of the webhooks API (list, read, redeliver, recover), declared once as
 * operations.ts declares the subscription ones; the response schemas state the presenters'
 * shapes (present.ts), and compile-time checks keep their keys and enums equal.
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
} from "@svc/openapi";
import {
  DELIVERY_STATUSES,
  type AttemptOutcome,
  type ErrorClass,
  type FailureReason,
} from "../domain/model.ts";
import { recoverBody } from "./bodies.ts";
import { BODY_ERRORS, deliveryPath, page, webhookPath } from "./operation-params.ts";
import type { presentAttempt, presentDelivery, presentRecovery } from "./present.ts";

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
export const _deliveryKeys: SameKeys<
  ReturnType<typeof presentDelivery>,
  z.output<typeof deliverySchema>
> = true;
export const _attemptKeys: SameKeys<
  ReturnType<typeof presentAttempt>,
  z.output<typeof attemptSchema>
> = true;

export const delivery: NamedSchema = { name: "WebhookDelivery", schema: deliverySchema };
const deliveryDetail: NamedSchema = {
  name: "WebhookDeliveryDetail",
  description: "A delivery with its attempts.",
  schema: deliveryDetailSchema,
};

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
