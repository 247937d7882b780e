/**
 * The webhook subscription operations and the event catalogue (README "API"), declared once,
 * and the service's whole list (the delivery operations are in delivery-operations.ts): the
 * router mounts these paths with these scopes, parses these query shapes and bodies, and the
 * OpenAPI document (tools/openapi.ts) is generated from them. The response schemas state the presenters' shapes
 * (present.ts); compile-time checks keep their keys and enums equal.
 */
import { z } from "zod";
import { EVENT_TYPES } from "@svc/events";
import {
  doc,
  toSchema,
  type NamedSchema,
  type OperationSpec,
  type SameKeys,
  type TagSpec,
  type ServiceOpenApi,
} from "@svc/openapi";
import { DISABLED_REASONS } from "../domain/model.ts";
import { createBody, patchBody } from "./bodies.ts";
import {
  delivery,
  getDeliveryOperation,
  listAllDeliveriesOperation,
  listDeliveriesOperation,
  recoverWebhookOperation,
  redeliverOperation,
} from "./delivery-operations.ts";
import { BODY_ERRORS, page, webhookPath } from "./operation-params.ts";
import type { presentEventType, presentSubscription } from "./present.ts";
import { EVENT_OPERATIONS, EVENT_TAGS } from "./events-operations.ts";
import { PORTAL_SESSION_OPERATIONS, PORTAL_TAG } from "./portal-operations.ts";

export const WEBHOOK_TAGS: TagSpec[] = [
  {
    name: "Webhooks",
    description:
      "A client's webhook subscriptions and their deliveries. A client sees only its own subscriptions; anything else is 404. URLs must be public https (no localhost, private, link-local or metadata addresses, also through DNS); redirects are not followed.",
  },
];

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
// The presenters return exactly these keys (present.ts); a drift is a compile error.
export const _subscriptionKeys: SameKeys<
  ReturnType<typeof presentSubscription>,
  z.output<typeof subscriptionSchema>
> = true;

const subscription: NamedSchema = { name: "WebhookSubscription", schema: subscriptionSchema };
const withSecret: NamedSchema = {
  name: "WebhookSubscriptionWithSecret",
  description: "A subscription with its signing secret (create and rotate-secret only).",
  schema: withSecretSchema,
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

const noStore = {
  "Cache-Control": {
    description: "The answer holds a secret.",
    schema: { const: "no-store" },
    required: true,
  },
};

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
