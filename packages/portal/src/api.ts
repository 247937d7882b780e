// The portal API (/portal/api): the session, and the public webhooks API's paths answered with
// the session cookie. Every change carries the session's CSRF token.

// The API's shapes come from the generated client, so the page follows the document.
import type {
  CursorPagination,
  FeedEvent,
  Pagination as PagePagination,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookEventTypes,
  WebhookRecovery,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
} from "@integration-service/client";

export type { FeedEvent };
export type Subscription = WebhookSubscription;
export type Delivery = WebhookDelivery;
export type DeliveryDetail = WebhookDeliveryDetail;
export type DeliveryStatus = Delivery["status"];
/** One event type of the environment's catalogue, with its payload schema and an example. */
export type EventTypeEntry = WebhookEventTypes[number];

export const DELIVERY_STATUSES: ReadonlyArray<DeliveryStatus> = [
  "pending",
  "succeeded",
  "failed",
  "dead",
];

/** The portal session (`GET /portal/api/session`, the portal's own route). */
export interface Session {
  client_id: string;
  read_only: boolean;
  subscription_ids: string[] | null;
  expires_at: string;
  csrf_token: string;
  environment: "production" | "sandbox";
  links?: Record<string, string>;
}

export type Pagination = Partial<PagePagination> & Partial<CursorPagination>;

export interface Answer<T> {
  data: T;
  pagination: Pagination | undefined;
}

/** An error answer in the contract's envelope (or a transport failure, `status` 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ReadonlyArray<{ field?: string; message: string }>;
  constructor(
    status: number,
    code: string,
    message: string,
    details: ReadonlyArray<{ field?: string; message: string }> = [],
  ) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export const API_BASE = "/portal/api";

let csrfToken = "";
let prefetched: Promise<Subscription[]> | null = null;
let prefetchedLog: Promise<Answer<Delivery[]>> | null = null;
let onSessionEnded: (error: ApiError) => void = () => undefined;

/** The session's CSRF token (every non-GET sends it) and what to do when the session ends. */
export function configureApi(options: {
  csrfToken: string;
  onSessionEnded: (error: ApiError) => void;
}): void {
  csrfToken = options.csrfToken;
  onSessionEnded = options.onSessionEnded;
}

type Envelope = {
  success?: boolean;
  data?: unknown;
  meta?: { pagination?: Pagination };
  error?: { code?: string; message?: string; details?: Array<{ field?: string; message: string }> };
};

export async function request<T>(
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
): Promise<Answer<T>> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") {
    headers["X-CSRF-Token"] = csrfToken;
    // A change may add or remove a subscription or a delivery.
    prefetched = null;
    prefetchedLog = null;
  }
  let response: Response;
  try {
    // No cache mode of its own: the API's answers say `no-store`, and a fetch with one does not
    // take the answer the page's HTML preloaded (Firefox).
    response = await fetch(`${API_BASE}${path}`, {
      method,
      headers,
      credentials: "same-origin",
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, "NETWORK", "The portal cannot be reached. Check your connection.");
  }
  let json: Envelope | undefined;
  try {
    json = (await response.json()) as Envelope;
  } catch {
    json = undefined;
  }
  if (!response.ok || json?.success === false) {
    const error = new ApiError(
      response.status,
      json?.error?.code ?? `HTTP_${response.status}`,
      json?.error?.message ?? `The portal answered ${response.status}.`,
      json?.error?.details ?? [],
    );
    if (response.status === 401) onSessionEnded(error);
    throw error;
  }
  const data = (json && "data" in json ? json.data : json) as T;
  return { data, pagination: json?.meta?.pagination };
}

export const session = () => request<Session>("GET", "/session");

export interface DeliveryQuery {
  page: number;
  perPage: number;
  status?: DeliveryStatus | undefined;
  eventType?: string | undefined;
  createdSince?: string | undefined;
  createdBefore?: string | undefined;
}

function deliveryParams(query: DeliveryQuery): string {
  const params = new URLSearchParams({ page: String(query.page), per_page: String(query.perPage) });
  if (query.status) params.set("status", query.status);
  if (query.eventType) params.set("event_type", query.eventType);
  if (query.createdSince) params.set("created_since", query.createdSince);
  if (query.createdBefore) params.set("created_before", query.createdBefore);
  return params.toString();
}

const hook = (id: string) => `/v1/webhooks/${encodeURIComponent(id)}`;

export const webhooks = {
  list: (page = 1) => request<Subscription[]>("GET", `/v1/webhooks?per_page=100&page=${page}`),
  get: (id: string) => request<Subscription>("GET", hook(id)),
  create: (url: string, eventTypes: string[]) =>
    request<WebhookSubscriptionWithSecret>("POST", "/v1/webhooks", {
      url,
      event_types: eventTypes,
    }),
  update: (id: string, patch: { event_types?: string[]; enabled?: boolean; url?: string }) =>
    request<Subscription>("PATCH", hook(id), patch),
  remove: (id: string) => request<{ deleted: true }>("DELETE", hook(id)),
  test: (id: string) => request<Delivery>("POST", `${hook(id)}/test`),
  rotate: (id: string) =>
    request<WebhookSubscriptionWithSecret>("POST", `${hook(id)}/rotate-secret`),
  /** One subscription's deliveries, or (`id` null) every subscription's, newest first. */
  deliveries: (id: string | null, query: DeliveryQuery) =>
    request<Delivery[]>(
      "GET",
      `${id === null ? "/v1/webhooks" : hook(id)}/deliveries?${deliveryParams(query)}`,
    ),
  delivery: (id: string, deliveryId: string) =>
    request<DeliveryDetail>("GET", `${hook(id)}/deliveries/${encodeURIComponent(deliveryId)}`),
  redeliver: (id: string, deliveryId: string) =>
    request<Delivery>("POST", `${hook(id)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`),
  recover: (id: string, since: string, until?: string) =>
    request<WebhookRecovery>("POST", `${hook(id)}/recover`, until ? { since, until } : { since }),
};

export const events = {
  list: (query: { cursor?: string; type?: string; perPage: number }) => {
    const params = new URLSearchParams({ per_page: String(query.perPage) });
    if (query.cursor) params.set("cursor", query.cursor);
    else if (query.type) params.set("type", query.type);
    return request<FeedEvent[]>("GET", `/v1/events?${params.toString()}`);
  },
};

let catalogue: Promise<EventTypeEntry[]> | null = null;

/** The environment's event catalogue (`GET /v1/webhooks/event-types`), read once per page. */
export function eventTypesOnce(): Promise<EventTypeEntry[]> {
  if (catalogue) return catalogue;
  const read = request<EventTypeEntry[]>("GET", "/v1/webhooks/event-types").then((a) => a.data);
  // A failed read is tried again by the next screen that needs it.
  read.catch(() => {
    if (catalogue === read) catalogue = null;
  });
  catalogue = read;
  return read;
}

/** Every subscription the session sees (all pages). */
export async function allSubscriptions(): Promise<Subscription[]> {
  const first = await webhooks.list(1);
  const pages = first.pagination?.total_pages ?? 1;
  const rest = await Promise.all(
    Array.from({ length: Math.max(0, pages - 1) }, (_, i) => webhooks.list(i + 2)),
  );
  return [first, ...rest].flatMap((a) => a.data);
}

/**
 * Starts reading the subscriptions and (on the delivery log) its first page beside the session,
 * before the first render: the first screen needs them all, so they travel together.
 */
export function prefetchFirstScreen(log: boolean): void {
  prefetched = allSubscriptions();
  prefetched.catch(() => undefined);
  if (!log) return;
  prefetchedLog = webhooks.deliveries(null, { page: 1, perPage: FIRST_PAGE });
  prefetchedLog.catch(() => undefined);
}

/** The delivery log's page size. */
export const FIRST_PAGE = 50;

/** The prefetched first page of the log across subscriptions, once. */
export function firstLogPageOnce(): Promise<Answer<Delivery[]>> | null {
  const found = prefetchedLog;
  prefetchedLog = null;
  return found;
}

/** The prefetched subscriptions the first time, a fresh read after that. */
export function subscriptionsOnce(): Promise<Subscription[]> {
  const found = prefetched ?? allSubscriptions();
  prefetched = null;
  return found;
}
