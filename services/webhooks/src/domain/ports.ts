import type {
  AttemptOutcome,
  Delivery,
  DeliveryDetail,
  DeliveryFilter,
  DeliveryMessage,
  DeliveryStatus,
  ErrorClass,
  FailureReason,
  Page,
  PageRequest,
  PortalSession,
  StoredPortalSession,
  Subscription,
} from "./model.ts";
import type { TraceContext } from "@svc/events";

export type NewSubscription = {
  id: string;
  ownerClientId: string;
  url: string;
  eventTypes: string[];
  secretSealed: string;
  now: Date;
  /** Created paused (a reconciler looking up a half-made subscription); default enabled. */
  enabled?: boolean | undefined;
  /** The managing custom resource's uid (operator-made subscriptions only). */
  k8sUid?: string | undefined;
};

export type SubscriptionPatch = { url?: string; eventTypes?: string[]; enabled?: boolean };

/** Subscriptions, always scoped to their owner: another client's subscription does not exist. */
export interface SubscriptionStore {
  insert(input: NewSubscription): Promise<Subscription>;
  /** The owner's subscriptions, oldest first; only those of `ids` when given. */
  list(owner: string, page: PageRequest, ids?: string[] | null): Promise<Page<Subscription>>;
  get(owner: string, id: string): Promise<Subscription | undefined>;
  update(
    owner: string,
    id: string,
    patch: SubscriptionPatch,
    now: Date,
  ): Promise<Subscription | undefined>;
  delete(owner: string, id: string): Promise<boolean>;
  /**
   * The current secret becomes the previous one (signing until `overlapUntil`); the new one is
   * current.
   */
  rotateSecret(
    owner: string,
    id: string,
    input: { secretSealed: string; overlapUntil: Date; now: Date },
  ): Promise<Subscription | undefined>;
}

export type NewEvent = {
  eventUuid: string;
  eventType: string;
  body: string;
  trace?: TraceContext | undefined;
};

/**
 * Delivery records as the API reads and changes them (the subscription's ownership is checked
 * first).
 */
export interface DeliveryStore {
  list(subscriptionId: string, filter: DeliveryFilter, page: PageRequest): Promise<Page<Delivery>>;
  /** The deliveries of every subscription of the owner (or of those of `ids`), newest first. */
  listForOwner(
    owner: string,
    ids: string[] | null,
    filter: DeliveryFilter,
    page: PageRequest,
  ): Promise<Page<Delivery>>;
  get(subscriptionId: string, deliveryId: string): Promise<DeliveryDetail | undefined>;
  /** Records an event addressed to one subscription only (the test ping) and its delivery. */
  createSingle(
    subscriptionId: string,
    event: NewEvent,
    deliveryId: string,
    now: Date,
  ): Promise<Delivery>;
  /** Starts a new round for a failed or dead delivery; undefined when it is not in such a state. */
  startNewRound(
    subscriptionId: string,
    deliveryId: string,
    now: Date,
  ): Promise<Delivery | undefined>;
  /**
   * Starts a new round for every failed or dead delivery of the subscription created in
   * [since, until), in one statement: a delivery already pending is not touched, so a repeated
   * call queues nothing twice. Returns the new rounds' queue messages.
   */
  startNewRounds(
    subscriptionId: string,
    window: { since: Date; until: Date },
    now: Date,
  ): Promise<DeliveryMessage[]>;
  markQueued(messages: ReadonlyArray<DeliveryMessage>, now: Date): Promise<void>;
}

/** The deliveries work stream. Resolves once the stream has stored every message. */
export interface DeliveryQueue {
  enqueue(messages: ReadonlyArray<DeliveryMessage>, trace?: TraceContext): Promise<void>;
}

/** Everything one attempt needs, read in one query. */
export type AttemptContext = {
  deliveryId: string;
  subscriptionId: string;
  eventUuid: string;
  eventType: string;
  status: DeliveryStatus;
  round: number;
  roundAttempts: number;
  nextAttemptAt: Date | null;
  /** When the delivery record was made (its fan-out, ping or redelivery). */
  createdAt: Date;
  body: string;
  /**
   * The fan-out's W3C trace context, stored with the event: attempts are its children or link to
   * it.
   */
  trace: TraceContext | undefined;
  url: string;
  enabled: boolean;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
};

export type AttemptRecord = {
  deliveryId: string;
  round: number;
  /** The round's attempt count the worker saw; a concurrent duplicate that got there first wins. */
  expectedRoundAttempts: number;
  attemptedAt: Date;
  durationMs: number;
  statusCode: number | null;
  outcome: AttemptOutcome;
  errorClass: ErrorClass | null;
  errorDetail: string | null;
  responseSample: string | null;
  status: DeliveryStatus;
  failureReason: FailureReason | null;
  nextAttemptAt: Date | null;
};

/** The dispatcher's view of the store: fan-out, attempt bookkeeping, the requeue sweep. */
export interface DispatchStore {
  /**
   * Records the event and one delivery per matching enabled subscription (idempotent), and
   * returns every first-round delivery of the event still pending: the caller publishes them all
   * before acking the event, so a crash before that republishes them (the stream de-duplicates).
   */
  fanOut(event: NewEvent, now: Date): Promise<DeliveryMessage[]>;
  markQueued(messages: ReadonlyArray<DeliveryMessage>, now: Date): Promise<void>;
  loadForAttempt(deliveryId: string): Promise<AttemptContext | undefined>;
  /** False when the delivery moved on meanwhile (another copy of the message recorded first). */
  recordAttempt(record: AttemptRecord): Promise<boolean>;
  /** Ends a pending delivery whose subscription was disabled, without an attempt. */
  closeAsDisabled(deliveryId: string, round: number, now: Date): Promise<void>;
  findUnqueued(
    olderThan: Date,
    limit: number,
  ): Promise<Array<{ message: DeliveryMessage; trace: TraceContext | undefined }>>;
}

/**
 * Seals webhook signing secrets at rest and opens them to sign (store/secret-box.ts: AES-256-GCM
 * under WEBHOOK_SECRET_KEY, the subscription id as additional authenticated data).
 */
export type SecretBox = {
  seal(secret: string, subscriptionId: string): string;
  open(sealed: string, subscriptionId: string): string;
};

/** Why an attempt got no usable HTTP response; `blocked_url` means nothing was contacted. */
export type TransportErrorClass = "timeout" | "connection" | "tls" | "dns" | "blocked_url";

export type PostResult =
  | { kind: "response"; statusCode: number; durationMs: number; sample: string }
  | { kind: "error"; errorClass: TransportErrorClass; message: string; durationMs: number };

/**
 * The one outbound HTTP client of the webhook dispatcher: every POST goes through the URL guard.
 */
export interface WebhookHttpClient {
  post(url: string, body: string, headers: Record<string, string>): Promise<PostResult>;
  close(): Promise<void>;
}

/** One address a host name resolves to. */
export type ResolvedAddress = { address: string; family: 4 | 6 };

/** A URL that passed every rule, with the addresses the connection may use (and only those). */
export type VettedTarget = { url: URL; hostname: string; addresses: ResolvedAddress[] };

/**
 * The subscription URL rules (url-policy.ts) with the host resolved; fails with BlockedUrlError.
 * Implemented by outbound/url-guard.ts.
 */
export type UrlGuard = {
  /** Syntax and name rules only (no DNS): https, no userinfo, no internal names or literals. */
  parse(raw: string): URL;
  /** parse() plus resolution: every resolved address must be public. */
  vet(raw: string): Promise<VettedTarget>;
};

/** A subscription the check disabled, for the log line. */
export type AutoDisabled = {
  id: string;
  ownerClientId: string;
  firstFailureAt: Date;
  lastSuccessAt: Date | null;
};

export interface AutoDisableStore {
  /**
   * Disables (`endpoint_failing`, at `now`) at most `limit` enabled subscriptions whose failing
   * streak began at or before `cutoff` and whose last success, if any, is no later than `cutoff`.
   */
  disableFailing(cutoff: Date, now: Date, limit: number): Promise<AutoDisabled[]>;
}

/** A position in the (received_at, event_uuid) walk over old events. */
export type EventCursor = { receivedAt: string; eventUuid: string };
export type EventSweep = { deleted: number; scanned: number; last: EventCursor | null };

/** What retention deletes; each call is one bounded statement. */
export interface RetentionStore {
  /**
   * Deletes at most `limit` deliveries that are succeeded, failed or dead and last changed before
   * `cutoff`, with their attempts. Never a pending one, however old.
   */
  purgeFinishedDeliveries(cutoff: Date, limit: number): Promise<number>;
  /** Deletes at most `limit` portal sessions that ended (expired) before `cutoff`. */
  purgeEndedPortalSessions(cutoff: Date, limit: number): Promise<number>;
  /** Reads the next `limit` events received before `cutoff` after `after`; deletes those no delivery references. */
  purgeUnreferencedEvents(
    cutoff: Date,
    limit: number,
    after: EventCursor | null,
  ): Promise<EventSweep>;
}

/**
 * The two reads the Kubernetes reconciler needs that are not scoped to an owner: the subscription
 * a custom resource (by uid) manages, and the owner of a subscription id (the reconciler's remove
 * gets only the id). Every write still goes through the owner-scoped SubscriptionService.
 */
export interface K8sLinks {
  byUid(uid: string): Promise<Subscription | undefined>;
  ownerOf(id: string): Promise<string | undefined>;
}

export interface PortalSessionStore {
  insert(session: StoredPortalSession): Promise<void>;
  /** The client's sessions not yet expired at `now`, newest first. */
  list(clientId: string, now: Date, page: PageRequest): Promise<Page<PortalSession>>;
  get(id: string): Promise<StoredPortalSession | undefined>;
  /**
   * Marks an unopened, unrevoked, unexpired link opened with the cookie's hash; false when another
   * request opened it first or it was revoked or expired meanwhile.
   */
  open(id: string, cookieHash: string, now: Date): Promise<boolean>;
  revoke(clientId: string, id: string, now: Date): Promise<PortalSession | undefined>;
  /** Revokes every unrevoked session of the client; returns how many. */
  revokeClient(clientId: string, now: Date): Promise<number>;
}

/** Whether the client's subscriptions exist (a session is bound to the client's own only). */
export interface ClientSubscriptions {
  owned(clientId: string, ids: ReadonlyArray<string>): Promise<ReadonlyArray<string>>;
}
