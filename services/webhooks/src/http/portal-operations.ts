/**
 * The portal-session operations (docs/webhook-subscribers.md, "Portal"), declared once for the
 * router and the OpenAPI document, like ./operations.ts. The portal itself (`/portal/...`) is a
 * browser application behind a session cookie, outside the document.
 */
import { z } from "zod";
import { q } from "@svc/http";
import { doc, toSchema, type NamedSchema, type OperationSpec, type SameKeys } from "@svc/openapi";
import type { presentPortalSession } from "./portal-present.ts";

export const PORTAL_TAG = {
  name: "Portal sessions",
  description:
    "Links to the subscriber portal, a browser page where an integrator manages the client's webhook subscriptions and sees their deliveries without holding its credentials. A link is single-use and bound to the client, optionally to some of its subscriptions and to read-only; it opens a session that ends when the link's time is up, when it is revoked, or when the client is revoked. Behind the session cookie the portal calls the `Webhooks` and `Events` operations of this document under `/portal/api` (for example `GET /portal/api/v1/webhooks`), with the session's limits, the same answers and, on every change, the `X-CSRF-Token` header that `GET /portal/api/session` gives: a change without it, or sent from another origin, is 403 `CSRF_REJECTED`.",
};

export const portalSessionBody = z.strictObject({
  subscription_ids: z
    .array(z.uuid({ message: "must be a UUID" }), { message: "must be an array of UUIDs" })
    .min(1, { message: "must name at least one subscription" })
    .max(100, { message: "must name at most 100 subscriptions" })
    .optional()
    .meta({
      description:
        "Only these subscriptions of the client (the session cannot create others); absent: all of them.",
    }),
  read_only: z
    .boolean({ message: "must be true or false" })
    .optional()
    .meta({ description: "The session can look but change nothing. Default false." }),
  ttl_seconds: z
    .number({ message: "must be a whole number of seconds" })
    .int({ message: "must be a whole number of seconds" })
    .min(60, { message: "must be at least 60" })
    .optional()
    .meta({
      description:
        "How long the link and its session live, at most the installation's maximum (`WEBHOOK_PORTAL_SESSION_MAX_TTL_SECONDS`, 3600 by default), which is also the default.",
    }),
});

const sessionFields = {
  id: doc.uuid(),
  subscription_ids: z.array(doc.uuid()).nullable(),
  read_only: z.boolean(),
  created_at: doc.instant(),
  expires_at: doc.instant(),
  opened_at: doc
    .instant()
    .nullable()
    .meta({ description: "When the link was opened; null until then." }),
  revoked_at: doc.instant().nullable(),
  revoked_reason: z.enum(["requested", "client_revoked"]).nullable(),
};
const sessionSchema = z.strictObject(sessionFields);
const withUrlSchema = z.strictObject({
  ...sessionFields,
  url: z.string().meta({
    format: "uri",
    description:
      "The single-use link (it carries a one-time token): give it to the integrator; it is shown in this answer only.",
  }),
});
export const _portalSessionKeys: SameKeys<
  ReturnType<typeof presentPortalSession>,
  z.output<typeof sessionSchema>
> = true;

const session: NamedSchema = { name: "PortalSession", schema: sessionSchema };

export const createPortalSessionOperation = {
  operationId: "createPortalSession",
  method: "post",
  path: "/v1/webhooks/portal-sessions",
  summary: "Create a subscriber portal link",
  description:
    "A single-use link to the subscriber portal for this client. Opening it exchanges its token for a session cookie; a second opening, an expired or a revoked link shows a page saying so. Rate-limited per client (429 RATE_LIMITED).",
  tag: "Portal sessions",
  auth: { scope: "webhooks:write" },
  requestBody: {
    schema: { name: "PortalSessionCreate", schema: toSchema(portalSessionBody, "input") },
  },
  responses: {
    201: {
      description: "Created.",
      body: {
        envelope: "data",
        schema: {
          name: "PortalSessionWithUrl",
          description: "A portal session with its link (create only).",
          schema: withUrlSchema,
        },
      },
      headers: {
        "Cache-Control": {
          description: "The answer holds a one-time link.",
          schema: { const: "no-store" },
          required: true,
        },
      },
    },
  },
  errors: {
    413: ["PAYLOAD_TOO_LARGE"],
    415: ["UNSUPPORTED_MEDIA_TYPE"],
    422: ["VALIDATION_ERROR"],
    429: ["RATE_LIMITED"],
  },
} as const satisfies OperationSpec;

export const listPortalSessionsOperation = {
  operationId: "listPortalSessions",
  method: "get",
  path: "/v1/webhooks/portal-sessions",
  summary: "List the client's portal sessions",
  description:
    "Those not yet expired, revoked ones included; newest first. Never with their links.",
  tag: "Portal sessions",
  auth: { scope: "webhooks:read" },
  query: { page: q.page(), per_page: q.perPage() },
  responses: {
    200: { description: "A page of portal sessions.", body: { envelope: "page", items: session } },
  },
  errors: { 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const revokePortalSessionOperation = {
  operationId: "revokePortalSession",
  method: "delete",
  path: "/v1/webhooks/portal-sessions/{session_id}",
  summary: "Revoke a portal session",
  description:
    "Its link no longer opens and its browser session ends with the next request. Revoking a revoked session changes nothing.",
  tag: "Portal sessions",
  auth: { scope: "webhooks:write" },
  pathParams: {
    session_id: {
      description: "The session's id; anything not UUID-shaped is 422.",
      schema: { type: "string", format: "uuid" },
    },
  },
  responses: {
    200: { description: "The revoked session.", body: { envelope: "data", schema: session } },
  },
  errors: { 404: ["NOT_FOUND"], 422: ["VALIDATION_ERROR"] },
} as const satisfies OperationSpec;

export const PORTAL_SESSION_OPERATIONS: ReadonlyArray<OperationSpec> = [
  createPortalSessionOperation,
  listPortalSessionsOperation,
  revokePortalSessionOperation,
];
