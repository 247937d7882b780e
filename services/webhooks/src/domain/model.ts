/** A delivery's status (docs/decisions/delivery-status-model.md). */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "dead"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * Why a subscription is disabled: its owner asked (PATCH `enabled: false`, or a paused
 * WebhookSubscription resource), or every attempt failed for WEBHOOK_AUTO_DISABLE_AFTER_MS.
 */
export const DISABLED_REASONS = ["requested", "endpoint_failing"] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/**
 * A webhook subscription as the domain sees it; its secrets never leave the store, sealed or not.
 */
export type Subscription = {
  id: string;
  ownerClientId: string;
  url: string;
  eventTypes: string[];
  enabled: boolean;
  /** Null while enabled. */
  disabledReason: DisabledReason | null;
  disabledAt: Date | null;
  secretRotatedAt: Date | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

/**
 * Why a delivery ended without success: a final 4xx, a URL the guard refused at delivery time,
 * the subscription being disabled before the attempt, or six failed attempts (`dead`).
 */
export type FailureReason =
  "http_status" | "blocked_url" | "subscription_disabled" | "attempts_exhausted";

export type Delivery = {
  id: string;
  subscriptionId: string;
  eventUuid: string;
  eventType: string;
  status: DeliveryStatus;
  failureReason: FailureReason | null;
  round: number;
  roundAttempts: number;
  attemptCount: number;
  lastStatusCode: number | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

/** What an attempt led to. */
export type AttemptOutcome = "succeeded" | "retrying" | "failed" | "dead";

/** Why an attempt failed; null for a 2xx. */
export type ErrorClass =
  | "http_redirect"
  | "http_client_error"
  | "http_retryable_status"
  | "http_server_error"
  | "http_other_status"
  | "timeout"
  | "connection"
  | "tls"
  | "dns"
  | "blocked_url";

export type Attempt = {
  number: number;
  round: number;
  attemptedAt: Date;
  durationMs: number;
  statusCode: number | null;
  outcome: AttemptOutcome;
  errorClass: ErrorClass | null;
  errorDetail: string | null;
  responseSample: string | null;
};

export type DeliveryDetail = Delivery & { attempts: Attempt[] };

/** Which deliveries a list shows: by status, event type and creation time (since ≤ t < before). */
export type DeliveryFilter = {
  status?: DeliveryStatus | undefined;
  eventType?: string | undefined;
  since?: Date | undefined;
  before?: Date | undefined;
};

export type Page<T> = { items: T[]; total: number };
export type PageRequest = { page: number; perPage: number };

/** One delivery's queue message (the deliveries work stream); versioned like every message type. */
export type DeliveryMessage = {
  v: 1;
  delivery_uuid: string;
  subscription_uuid: string;
  event_uuid: string;
  round: number;
};

export type Clock = { now(): Date };
export const systemClock: Clock = { now: () => new Date() };

/** A subscriber portal session (domain/portal-sessions.ts). */
export type PortalSession = {
  id: string;
  clientId: string;
  /** The subscriptions the session may see and change; null: all of the client's. */
  subscriptionIds: string[] | null;
  readOnly: boolean;
  /** The creating token's scopes (the events feed shows the kinds they read). */
  scopes: string[];
  createdAt: Date;
  expiresAt: Date;
  openedAt: Date | null;
  revokedAt: Date | null;
  revokedReason: PortalRevokedReason | null;
};

export type PortalRevokedReason = "requested" | "client_revoked";

/** A session with the hashes only the domain compares. */
export type StoredPortalSession = PortalSession & { tokenHash: string; cookieHash: string | null };
