import { EVENT_CATALOGUE, eventTypesFor, type EntityType, type EventType } from "@svc/events";
import { InsufficientScopeError, NotFoundError, ValidationError } from "@svc/errors";
import { decodeCursor, encodeCursor, RefreshingCache } from "@svc/paging";
import type { Clock } from "./model.ts";

/**
 * Which scope lets a caller read the events of each entity kind in the feed: the scope that reads
 * the entity itself (an event names an entity and links to it). `system.ping` is a test delivery
 * to one subscription, not a change, and is never in the feed.
 */
export const FEED_SCOPE_OF_KIND = {
  vacancy: "vacancies:read",
  practice: "practices:read",
  candidate: "candidates:read",
  application: "applications:read",
  recruitment_case: "recruitment-cases:read",
} as const satisfies Record<Exclude<EntityType, "system">, string>;

export type FeedEventType = Exclude<EventType, "system.ping">;

/** The event types of the environment's catalogue that can be in the feed, in catalogue order. */
export function feedEventTypes(environment: "production" | "sandbox"): FeedEventType[] {
  return eventTypesFor(environment).filter((t): t is FeedEventType => t !== "system.ping");
}

export function feedScopeOf(type: FeedEventType): string {
  return FEED_SCOPE_OF_KIND[EVENT_CATALOGUE[type] as keyof typeof FEED_SCOPE_OF_KIND];
}

/**
 * A place in the feed: after every event ordered before (xid, uuid). The order is the inserting
 * transaction's id, then the event uuid (docs/decisions/events-feed-cursor.md).
 */
export type FeedPosition = { xid: string; uuid: string };

export const FEED_START: FeedPosition = { xid: "0", uuid: "00000000-0000-0000-0000-000000000000" };
const LAST_UUID = "ffffffff-ffff-ffff-ffff-ffffffffffff";

export type FeedFilter = {
  /** Null: every type the caller may read. */
  types: FeedEventType[] | null;
  since: Date | null;
  before: Date | null;
};

export type FeedEvent = {
  eventUuid: string;
  eventType: FeedEventType;
  /** The payload exactly as delivered to subscribers (the signed body). */
  body: string;
  receivedAt: Date;
  position: FeedPosition;
};

export type FeedRead = {
  types: ReadonlyArray<FeedEventType>;
  since: Date | null;
  before: Date | null;
  /** Nothing received before this is in the feed (the retention window). */
  notBefore: Date;
};

/** The feed's reads (store/pg-event-feed-store.ts). */
export interface EventFeedStore {
  /**
   * Up to `limit` events after `after` in feed order, only those no later commit can precede,
   * and `horizon`: every event that will ever be ordered before (horizon, any uuid) is already
   * readable.
   */
  page(
    read: FeedRead,
    after: FeedPosition,
    limit: number,
  ): Promise<{ events: FeedEvent[]; horizon: string }>;
  count(read: FeedRead): Promise<number>;
  get(eventUuid: string, read: FeedRead): Promise<FeedEvent | undefined>;
}

type Cursor = {
  position: FeedPosition;
  page: number;
  filter: FeedFilter;
};

export type FeedPage = {
  events: FeedEvent[];
  page: number;
  perPage: number;
  total: number;
  nextCursor: string;
  hasMore: boolean;
};

const DAY_MS = 86_400_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const XID = /^(0|[1-9][0-9]{0,18})$/;

/**
 * The events feed: every event of the catalogue the dispatcher received (whether or not anyone
 * subscribed to it), within the retention window, of the kinds the caller's scopes may read,
 * oldest first, walked by an opaque cursor that carries the position and the filters.
 */
export class EventFeed {
  readonly #store: EventFeedStore;
  readonly #clock: Clock;
  readonly #retentionMs: number;
  readonly #types: FeedEventType[];
  readonly #totals: RefreshingCache<number>;

  constructor(deps: {
    store: EventFeedStore;
    clock: Clock;
    environment: "production" | "sandbox";
    retentionDays: number;
    /** How long a list total is reused (ms; a count reads every matching row); 0: every page. */
    totalsTtlMs?: number;
  }) {
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#retentionMs = deps.retentionDays * DAY_MS;
    this.#types = feedEventTypes(deps.environment);
    this.#totals = new RefreshingCache({
      ttlMs: deps.totalsTtlMs ?? 60_000,
      now: () => deps.clock.now().getTime(),
    });
  }

  /** The event types the scopes may read; a type asked for but not readable is 403 naming its scope. */
  #readable(scopes: ReadonlySet<string>, asked: FeedEventType[] | null): FeedEventType[] {
    if (asked === null) return this.#types.filter((t) => scopes.has(feedScopeOf(t)));
    for (const type of asked) {
      const scope = feedScopeOf(type);
      if (!scopes.has(scope)) throw new InsufficientScopeError(scope, "integration-service");
    }
    return asked;
  }

  /** `types` from the query: known feed types of this environment, or 422. */
  parseTypes(text: string | undefined): FeedEventType[] | null {
    if (text === undefined) return null;
    const types = [...new Set(text.split(",").map((t) => t.trim()))];
    const unknown = types.filter((t) => !(this.#types as string[]).includes(t));
    if (unknown.length > 0 || types.length === 0)
      throw new ValidationError([
        {
          field: "type",
          message: `must be comma-separated event types of the feed: ${this.#types.join(", ")}`,
        },
      ]);
    return types as FeedEventType[];
  }

  async list(
    scopes: ReadonlySet<string>,
    query: { cursor?: string; filter: FeedFilter; perPage: number; filtered: boolean },
  ): Promise<FeedPage> {
    let cursor: Cursor;
    if (query.cursor !== undefined) {
      // The cursor carries the walk's filters; a second set would contradict or repeat them.
      if (query.filtered)
        throw new ValidationError([
          {
            field: "cursor",
            message:
              "carries the filters of its walk; give it without type, created_since or created_before",
          },
        ]);
      const decoded = decodeCursor(query.cursor, (v) => this.#parseCursor(v));
      if (!decoded)
        throw new ValidationError([{ field: "cursor", message: "is not a cursor of this feed" }]);
      cursor = decoded;
    } else {
      cursor = { position: FEED_START, page: 1, filter: query.filter };
    }
    const read: FeedRead = {
      types: this.#readable(scopes, cursor.filter.types),
      since: cursor.filter.since,
      before: cursor.filter.before,
      notBefore: new Date(this.#clock.now().getTime() - this.#retentionMs),
    };
    if (read.types.length === 0)
      throw new InsufficientScopeError(
        Object.values(FEED_SCOPE_OF_KIND).join(" or "),
        "integration-service",
      );
    const { events, horizon } = await this.#store.page(read, cursor.position, query.perPage + 1);
    const hasMore = events.length > query.perPage;
    const shown = events.slice(0, query.perPage);
    // A page that is not full returned everything readable below the horizon: the next page
    // starts there, so a caught-up reader does not re-scan what it has passed (filtered-out rows).
    const last = shown.at(-1)?.position ?? cursor.position;
    const next: FeedPosition = hasMore
      ? last
      : maxPosition(last, { xid: (BigInt(horizon) - 1n).toString(), uuid: LAST_UUID });
    const totalKey = JSON.stringify([read.types, read.since, read.before]);
    const counted = await this.#totals.get(totalKey, () => this.#store.count(read));
    return {
      events: shown,
      page: cursor.page,
      perPage: query.perPage,
      total: Math.max(counted, shown.length),
      nextCursor: encodeCursor({
        v: 1,
        x: next.xid,
        u: next.uuid,
        // The page number moves on only when this page showed something.
        n: shown.length > 0 ? cursor.page + 1 : cursor.page,
        t: cursor.filter.types,
        s: cursor.filter.since?.toISOString() ?? null,
        b: cursor.filter.before?.toISOString() ?? null,
      }),
      hasMore,
    };
  }

  async get(scopes: ReadonlySet<string>, eventUuid: string): Promise<FeedEvent> {
    const types = this.#types.filter((t) => scopes.has(feedScopeOf(t)));
    const read: FeedRead = {
      types,
      since: null,
      before: null,
      notBefore: new Date(this.#clock.now().getTime() - this.#retentionMs),
    };
    const found = types.length > 0 ? await this.#store.get(eventUuid, read) : undefined;
    if (!found) throw new NotFoundError("event not found");
    return found;
  }

  #parseCursor(value: unknown): Cursor | undefined {
    if (typeof value !== "object" || value === null) return undefined;
    const c = value as Record<string, unknown>;
    if (c.v !== 1 || typeof c.x !== "string" || !XID.test(c.x)) return undefined;
    if (typeof c.u !== "string" || !UUID.test(c.u)) return undefined;
    if (typeof c.n !== "number" || !Number.isSafeInteger(c.n) || c.n < 1) return undefined;
    let types: FeedEventType[] | null = null;
    if (c.t !== null) {
      if (!Array.isArray(c.t) || c.t.length === 0) return undefined;
      if (!c.t.every((t) => typeof t === "string" && (this.#types as string[]).includes(t)))
        return undefined;
      types = c.t as FeedEventType[];
    }
    const since = instant(c.s);
    const before = instant(c.b);
    if (since === undefined || before === undefined) return undefined;
    return { position: { xid: c.x, uuid: c.u }, page: c.n, filter: { types, since, before } };
  }
}

function instant(value: unknown): Date | null | undefined {
  if (value === null) return null;
  if (typeof value !== "string") return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) || date.toISOString() !== value ? undefined : date;
}

function maxPosition(a: FeedPosition, b: FeedPosition): FeedPosition {
  const ax = BigInt(a.xid);
  const bx = BigInt(b.xid);
  if (ax !== bx) return ax > bx ? a : b;
  return a.uuid >= b.uuid ? a : b;
}
