import { EVENT_CATALOGUE, eventTypesFor, type EntityType, type EventType } from "@svc/events";
import { InsufficientScopeError, NotFoundError, ValidationError } from "@svc/errors";
import { cursorPage, cutPage, openCursorWalk, RefreshingCache, type CursorPage } from "@svc/paging";
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

/** The event types a client's own subscriptions select, enabled or paused (the subscription store). */
export interface SubscribedTypes {
  eventTypesOf(owner: string): Promise<ReadonlySet<string>>;
}

/** Who reads the feed: the token's client and scopes. */
export type FeedReader = { clientId: string; scopes: ReadonlySet<string> };

/** Where a walk of the feed stands, and the filters it walks with. */
type WalkState = { position: FeedPosition; filter: FeedFilter };

const DAY_MS = 86_400_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const XID = /^(0|[1-9][0-9]{0,18})$/;

/**
 * The events feed: every event of the catalogue the dispatcher received (whether or not anyone
 * subscribed to it), within the retention window, oldest first, walked by an opaque cursor that
 * carries the position and the filters. A reader sees the kinds its scopes read, and the types its
 * own subscriptions select (what it is sent anyway), so `webhooks:read` alone shows the latter.
 */
export class EventFeed {
  readonly #store: EventFeedStore;
  readonly #subscriptions: SubscribedTypes;
  readonly #clock: Clock;
  readonly #retentionMs: number;
  readonly #types: FeedEventType[];
  readonly #totals: RefreshingCache<number>;

  constructor(deps: {
    store: EventFeedStore;
    subscriptions: SubscribedTypes;
    clock: Clock;
    environment: "production" | "sandbox";
    retentionDays: number;
    /** How long a list total is reused (ms; a count reads every matching row); 0: every page. */
    totalsTtlMs?: number;
  }) {
    this.#store = deps.store;
    this.#subscriptions = deps.subscriptions;
    this.#clock = deps.clock;
    this.#retentionMs = deps.retentionDays * DAY_MS;
    this.#types = feedEventTypes(deps.environment);
    this.#totals = new RefreshingCache({
      ttlMs: deps.totalsTtlMs ?? 60_000,
      now: () => deps.clock.now().getTime(),
    });
  }

  /** The types a reader may see: by its scopes, and those its subscriptions select. */
  async #readableTypes(reader: FeedReader): Promise<FeedEventType[]> {
    const byScope = this.#types.filter((t) => reader.scopes.has(feedScopeOf(t)));
    if (byScope.length === this.#types.length) return byScope;
    const subscribed = await this.#subscriptions.eventTypesOf(reader.clientId);
    return this.#types.filter((t) => reader.scopes.has(feedScopeOf(t)) || subscribed.has(t));
  }

  /** The event types to read; a type asked for but not readable is 403 naming its scope. */
  async #readable(reader: FeedReader, asked: FeedEventType[] | null): Promise<FeedEventType[]> {
    const readable = await this.#readableTypes(reader);
    if (asked === null) return readable;
    for (const type of asked) {
      if (!readable.includes(type))
        throw new InsufficientScopeError(feedScopeOf(type), "integration-service");
    }
    return asked;
  }

  /** `type` from the query (feed types of any environment): those of this environment, or 422. */
  parseTypes(types: ReadonlyArray<FeedEventType> | undefined): FeedEventType[] | null {
    if (types === undefined) return null;
    if (!types.every((t) => this.#types.includes(t)))
      throw new ValidationError([
        {
          field: "type",
          message: `must be comma-separated event types of the feed: ${this.#types.join(", ")}`,
        },
      ]);
    return [...types];
  }

  async list(
    reader: FeedReader,
    query: { cursor?: string; filter: FeedFilter; perPage: number; filtered: boolean },
  ): Promise<CursorPage<FeedEvent>> {
    // The cursor carries the walk's filters; a second set would contradict or repeat them.
    if (query.cursor !== undefined && query.filtered)
      throw new ValidationError([
        {
          field: "cursor",
          message:
            "carries the filters of its walk; give it without type, created_since or created_before",
        },
      ]);
    const walk = openCursorWalk<WalkState>({
      cursor: query.cursor,
      start: { position: FEED_START, filter: query.filter },
      parse: (fields) => this.#parseCursor(fields),
      listName: "feed",
    });
    const { position, filter } = walk.state;
    const read: FeedRead = {
      types: await this.#readable(reader, filter.types),
      since: filter.since,
      before: filter.before,
      notBefore: new Date(this.#clock.now().getTime() - this.#retentionMs),
    };
    // Nothing readable (no kind's scope, no subscription): an empty feed, as for any filter that
    // matches nothing.
    const { events, horizon } =
      read.types.length === 0
        ? { events: [], horizon: position.xid }
        : await this.#store.page(read, position, query.perPage + 1);
    const { shown, hasMore } = cutPage(events, query.perPage);
    // A page that is not full returned everything readable below the horizon: the next page
    // starts there, so a caught-up reader does not re-scan what it has passed (filtered-out rows).
    const last = shown.at(-1)?.position ?? position;
    const next: FeedPosition = hasMore
      ? last
      : maxPosition(last, { xid: (BigInt(horizon) - 1n).toString(), uuid: LAST_UUID });
    const totalKey = JSON.stringify([read.types, read.since, read.before]);
    const counted =
      read.types.length === 0 ? 0 : await this.#totals.get(totalKey, () => this.#store.count(read));
    return cursorPage(walk, {
      shown,
      hasMore,
      perPage: query.perPage,
      total: Math.max(counted, shown.length),
      next: {
        x: next.xid,
        u: next.uuid,
        t: filter.types,
        s: filter.since?.toISOString() ?? null,
        b: filter.before?.toISOString() ?? null,
      },
    });
  }

  async get(reader: FeedReader, eventUuid: string): Promise<FeedEvent> {
    const types = await this.#readableTypes(reader);
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

  /** A cursor's position and filters (openCursorWalk has read its version and page number). */
  #parseCursor(c: Record<string, unknown>): WalkState | undefined {
    if (typeof c.x !== "string" || !XID.test(c.x)) return undefined;
    if (typeof c.u !== "string" || !UUID.test(c.u)) return undefined;
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
    return { position: { xid: c.x, uuid: c.u }, filter: { types, since, before } };
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
