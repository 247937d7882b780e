import type pg from "pg";
import { guardPg } from "@svc/db";
import type {
  EventFeedStore,
  FeedEvent,
  FeedEventType,
  FeedPosition,
  FeedRead,
} from "../domain/event-feed.ts";

/**
 * The feed's statements. The horizon is the oldest transaction id still running when the
 * statement's snapshot was taken: every transaction below it has ended, so no row with a lower
 * feed_xid can appear later, and only those rows are listed (docs/decisions/events-feed-cursor.md).
 * $1 types, $2 since, $3 before, $4 not before (the retention window).
 */
const FILTER = `event_type = ANY($1::text[])
      AND received_at >= $4 AND ($2::timestamptz IS NULL OR received_at >= $2)
      AND ($3::timestamptz IS NULL OR received_at < $3)`;
const HORIZON = `(pg_snapshot_xmin(pg_current_snapshot())::text)::bigint`;

const FEED_SQL = {
  page: `
    WITH h AS (SELECT ${HORIZON} AS horizon)
    SELECT h.horizon::text AS horizon, e.event_uuid, e.event_type, e.body, e.received_at, e.feed_xid::text AS feed_xid
    FROM h LEFT JOIN LATERAL (
      SELECT event_uuid, event_type, body, received_at, feed_xid FROM webhooks.events
      WHERE ${FILTER}
        AND feed_xid < h.horizon AND (feed_xid, event_uuid) > ($5::bigint, $6::uuid)
      ORDER BY feed_xid, event_uuid LIMIT $7) e ON true
    ORDER BY e.feed_xid, e.event_uuid`,
  count: `
    SELECT count(*)::int AS total FROM webhooks.events WHERE ${FILTER} AND feed_xid < ${HORIZON}`,
  get: `
    SELECT event_uuid, event_type, body, received_at, feed_xid::text AS feed_xid FROM webhooks.events
    WHERE event_uuid = $5 AND ${FILTER}`,
} as const;

type Row = {
  event_uuid: string;
  event_type: string;
  body: string;
  received_at: Date;
  feed_xid: string;
};

const toEvent = (r: Row): FeedEvent => ({
  eventUuid: r.event_uuid,
  eventType: r.event_type as FeedEventType,
  body: r.body,
  receivedAt: r.received_at,
  position: { xid: r.feed_xid, uuid: r.event_uuid },
});

const filterValues = (read: FeedRead) => [read.types, read.since, read.before, read.notBefore];

export class PgEventFeedStore implements EventFeedStore {
  readonly #pool: pg.Pool;
  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  page(read: FeedRead, after: FeedPosition, limit: number) {
    return guardPg(async () => {
      const { rows } = await this.#pool.query<Row & { horizon: string }>({
        name: "webhooks_feed_page",
        text: FEED_SQL.page,
        values: [...filterValues(read), after.xid, after.uuid, limit],
      });
      return {
        horizon: rows[0]!.horizon,
        events: rows.filter((r) => r.event_uuid !== null).map(toEvent),
      };
    });
  }

  count(read: FeedRead) {
    return guardPg(async () => {
      const { rows } = await this.#pool.query<{ total: number }>({
        name: "webhooks_feed_count",
        text: FEED_SQL.count,
        values: filterValues(read),
      });
      return rows[0]!.total;
    });
  }

  get(eventUuid: string, read: FeedRead) {
    return guardPg(async () => {
      const { rows } = await this.#pool.query<Row>({
        name: "webhooks_feed_get",
        text: FEED_SQL.get,
        values: [...filterValues(read), eventUuid],
      });
      return rows[0] ? toEvent(rows[0]) : undefined;
    });
  }
}
