import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  pgSchema,
  text,
  timestamp,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import type { DeliveryStatus } from "../domain/model.ts";

/** This service's own PostgreSQL schema; no other service reads it. */
export const webhooksSchema = pgSchema("webhooks");

const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const subscriptions = webhooksSchema.table(
  "subscriptions",
  {
    id: uuid("id").primaryKey(),
    /** The API client (token `client_id`) that owns it; every read and write is scoped to it. */
    ownerClientId: text("owner_client_id").notNull(),
    url: text("url").notNull(),
    eventTypes: text("event_types").array().notNull(),
    enabled: boolean("enabled").notNull().default(true),
    /** AES-256-GCM sealed signing secret (secret-box.ts); never returned after creation. */
    secretSealed: text("secret_sealed").notNull(),
    /** The secret before the last rotation, still signing until previous_secret_expires_at. */
    previousSecretSealed: text("previous_secret_sealed"),
    previousSecretExpiresAt: at("previous_secret_expires_at"),
    secretRotatedAt: at("secret_rotated_at"),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
    /**
     * The uid of the WebhookSubscription custom resource that manages it (null for API-made
     * ones). Unique, so a repeated or concurrent reconcile can never create a second one.
     */
    k8sUid: text("k8s_uid").unique("subscriptions_k8s_uid_key"),
    /** Why it is disabled (SubscriptionDisabledReason); null while enabled. */
    disabledReason: text("disabled_reason"),
    disabledAt: at("disabled_at"),
    /**
     * The first failed attempt since the last success (null after a success or re-enabling);
     * with last_success_at it decides automatic disabling
     * (docs/decisions/auto-disable-failing-endpoints.md).
     */
    firstFailureAt: at("first_failure_at"),
    /** The last successful attempt, to the minute (a healthy subscription writes once a minute). */
    lastSuccessAt: at("last_success_at"),
  },
  (t) => [
    index("subscriptions_owner_idx").on(t.ownerClientId, t.createdAt, t.id),
    // Fan-out asks "which enabled subscriptions want this type": event_types @> ARRAY[type].
    index("subscriptions_event_types_idx").using("gin", t.eventTypes),
    check(
      "subscriptions_disabled_reason_check",
      sql`disabled_reason IN ('requested', 'endpoint_failing')`,
    ),
  ],
);

/** Each event the dispatcher received (or the API created, for a ping), with its exact body. */
export const events = webhooksSchema.table(
  "events",
  {
    eventUuid: uuid("event_uuid").primaryKey(),
    eventType: text("event_type").notNull(),
    /** The payload JSON exactly as received: it is the signed and POSTed body, byte for byte. */
    body: text("body").notNull(),
    traceparent: text("traceparent"),
    tracestate: text("tracestate"),
    receivedAt: at("received_at").notNull(),
    /**
     * The id of the transaction that inserted the row: the events feed's order is (feed_xid,
     * event_uuid), read only below the oldest transaction still running, so a feed reader never
     * skips a row that commits late (docs/decisions/events-feed-cursor.md). Rows older than the
     * feed hold 0.
     */
    feedXid: bigint("feed_xid", { mode: "number" })
      .notNull()
      .default(sql`(pg_current_xact_id()::text)::bigint`),
  },
  (t) => [
    // Retention walks old events in (received_at, event_uuid) order, a batch at a time.
    index("events_received_at_idx").on(t.receivedAt, t.eventUuid),
    // The events feed walks them in (feed_xid, event_uuid) order from a cursor.
    index("events_feed_idx").on(t.feedXid, t.eventUuid),
  ],
);

export const deliveries = webhooksSchema.table(
  "deliveries",
  {
    id: uuid("id").primaryKey(),
    // Deleting a subscription deletes its deliveries: a pending one then finds no row and stops.
    subscriptionId: uuid("subscription_id")
      .notNull()
      .references(() => subscriptions.id, { onDelete: "cascade" }),
    eventUuid: uuid("event_uuid")
      .notNull()
      .references(() => events.eventUuid),
    eventType: text("event_type").notNull(),
    status: text("status").$type<DeliveryStatus>().notNull(),
    /** Why a delivery ended failed or dead (FailureReason, domain/model.ts). */
    failureReason: text("failure_reason"),
    /** Bumped by a manual redelivery; queue messages of an older round are ignored. */
    round: integer("round").notNull().default(1),
    /** Attempts in the current round; the retry schedule and `dead` count these. */
    roundAttempts: integer("round_attempts").notNull().default(0),
    attemptCount: integer("attempt_count").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    lastAttemptAt: at("last_attempt_at"),
    nextAttemptAt: at("next_attempt_at"),
    /**
     * When the current round's queue message was stored; null = not yet queued (the sweep will).
     */
    queuedAt: at("queued_at"),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
  },
  (t) => [
    // One delivery per (event, subscription): a redelivered event creates no second one.
    unique("deliveries_event_subscription_key").on(t.eventUuid, t.subscriptionId),
    index("deliveries_subscription_idx").on(t.subscriptionId, t.createdAt, t.id),
    index("deliveries_subscription_status_idx").on(t.subscriptionId, t.status, t.createdAt),
    // The delivery log filtered by event type, newest first (pg-delivery-store.ts).
    index("deliveries_subscription_type_idx").on(t.subscriptionId, t.eventType, t.createdAt, t.id),
    index("deliveries_unqueued_idx")
      .on(t.createdAt)
      .where(sql`queued_at IS NULL`),
    // Retention finds finished deliveries by when they finished (pg-retention-store.ts).
    index("deliveries_finished_idx")
      .on(t.updatedAt)
      .where(sql`status <> 'pending'`),
    check("deliveries_status_check", sql`status IN ('pending', 'succeeded', 'failed', 'dead')`),
  ],
);

export const deliveryAttempts = webhooksSchema.table(
  "delivery_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    deliveryId: uuid("delivery_id")
      .notNull()
      .references(() => deliveries.id, { onDelete: "cascade" }),
    /** 1.. over the delivery's whole life; `round` tells manual redeliveries apart. */
    number: integer("number").notNull(),
    round: integer("round").notNull(),
    attemptedAt: at("attempted_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    statusCode: integer("status_code"),
    /** What the attempt led to: succeeded, retrying, failed, dead. */
    outcome: text("outcome").notNull(),
    errorClass: text("error_class"),
    /** Error names and codes of a transport failure (never headers, bodies or secrets). */
    errorDetail: text("error_detail"),
    /** The start of the response body, capped (RESPONSE_SAMPLE_CHARS, guarded-client.ts). */
    responseSample: text("response_sample"),
  },
  (t) => [index("delivery_attempts_delivery_idx").on(t.deliveryId, t.number)],
);

/**
 * Subscriber portal sessions (docs/decisions/portal-sessions.md): a one-time link, then a cookie.
 * Only SHA-256 hashes of the link's token and of the cookie's secret are kept.
 */
export const portalSessions = webhooksSchema.table(
  "portal_sessions",
  {
    id: uuid("id").primaryKey(),
    /** The API client that created it; the session acts as that client, never more. */
    clientId: text("client_id").notNull(),
    /** The subscriptions it may see and change; null: every subscription of the client. */
    subscriptionIds: uuid("subscription_ids").array(),
    readOnly: boolean("read_only").notNull(),
    /**
     * The creating token's scopes: the events feed shows the kinds they read. A read-only session
     * acts with `webhooks:read` in place of `webhooks:write`.
     */
    scopes: text("scopes").array().notNull(),
    /** SHA-256 of the link's one-time secret (base64url). */
    tokenHash: text("token_hash").notNull(),
    /** SHA-256 of the cookie's secret, set when the link is opened (base64url). */
    cookieHash: text("cookie_hash"),
    createdAt: at("created_at").notNull(),
    /** The link's and the session's end: at most WEBHOOK_PORTAL_SESSION_MAX_TTL_SECONDS after creation. */
    expiresAt: at("expires_at").notNull(),
    openedAt: at("opened_at"),
    revokedAt: at("revoked_at"),
    /** `requested` (DELETE) or `client_revoked` (the API client was revoked). */
    revokedReason: text("revoked_reason"),
  },
  (t) => [
    index("portal_sessions_client_idx").on(t.clientId, t.createdAt),
    check(
      "portal_sessions_revoked_reason_check",
      sql`revoked_reason IN ('requested', 'client_revoked')`,
    ),
  ],
);

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type DeliveryRow = typeof deliveries.$inferSelect;
export type AttemptRow = typeof deliveryAttempts.$inferSelect;
