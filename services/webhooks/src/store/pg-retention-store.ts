import type pg from "pg";
import { guardPg } from "@svc/db";
import type { EventCursor, EventSweep, RetentionStore } from "../domain/ports.ts";

/**
 * Retention's statements. Each is one short transaction touching at most `limit` rows (plus the
 * attempts of those deliveries), so no statement holds locks or grows WAL for long.
 */
const RETENTION_SQL = {
  // Finished = not pending (the check constraint allows nothing else); updated_at is when it
  // finished. SKIP LOCKED: a row the API is just redelivering (startNewRound) is left alone, and
  // the outer re-check deletes nothing that became pending meanwhile. Attempts go by the cascade.
  purgeDeliveries: `
    DELETE FROM webhooks.deliveries WHERE id IN (
      SELECT id FROM webhooks.deliveries
      WHERE status <> 'pending' AND updated_at < $1
      ORDER BY updated_at LIMIT $2
      FOR UPDATE SKIP LOCKED)
    AND status <> 'pending'`,

  // Old events no delivery references any more (or never did: events no subscription wanted),
  // walked in key order from a cursor so events still referenced are read once per run, not once
  // per batch. Returns the batch's last key as the next cursor (the timestamp as text, so its
  // microseconds survive the round trip).
  purgeEvents: `
    WITH batch AS (
      SELECT event_uuid, received_at FROM webhooks.events
      WHERE received_at < $1 AND (received_at, event_uuid) > ($3::timestamptz, $4::uuid)
      ORDER BY received_at, event_uuid LIMIT $2),
    doomed AS (
      SELECT e.event_uuid FROM webhooks.events e JOIN batch b ON b.event_uuid = e.event_uuid
      WHERE NOT EXISTS (SELECT 1 FROM webhooks.deliveries d WHERE d.event_uuid = e.event_uuid)
      FOR UPDATE OF e SKIP LOCKED),
    gone AS (
      DELETE FROM webhooks.events e USING doomed WHERE e.event_uuid = doomed.event_uuid RETURNING 1),
    last AS (
      SELECT b.received_at, b.event_uuid FROM batch b ORDER BY b.received_at DESC, b.event_uuid DESC LIMIT 1)
    SELECT (SELECT count(*) FROM gone)::int AS deleted, (SELECT count(*) FROM batch)::int AS scanned,
           (SELECT received_at::text FROM last) AS last_received_at, (SELECT event_uuid FROM last) AS last_event_uuid`,

  // Portal sessions past their end: nothing reads them any more (their actions are in the logs).
  purgePortalSessions: `
    DELETE FROM webhooks.portal_sessions WHERE id IN (
      SELECT id FROM webhooks.portal_sessions WHERE expires_at < $1
      ORDER BY expires_at LIMIT $2)`,
} as const;

/** Before every key: the walk's starting cursor. */
const START: EventCursor = {
  receivedAt: "-infinity",
  eventUuid: "00000000-0000-0000-0000-000000000000",
};

export class PgRetentionStore implements RetentionStore {
  readonly #pool: pg.Pool;
  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  purgeFinishedDeliveries(cutoff: Date, limit: number): Promise<number> {
    return guardPg(async () => {
      const result = await this.#pool.query({
        name: "webhooks_retention_deliveries",
        text: RETENTION_SQL.purgeDeliveries,
        values: [cutoff, limit],
      });
      return result.rowCount ?? 0;
    });
  }

  purgeEndedPortalSessions(cutoff: Date, limit: number): Promise<number> {
    return guardPg(async () => {
      const result = await this.#pool.query({
        name: "webhooks_retention_portal_sessions",
        text: RETENTION_SQL.purgePortalSessions,
        values: [cutoff, limit],
      });
      return result.rowCount ?? 0;
    });
  }

  purgeUnreferencedEvents(
    cutoff: Date,
    limit: number,
    after: EventCursor | null,
  ): Promise<EventSweep> {
    const from = after ?? START;
    return guardPg(async () => {
      const { rows } = await this.#pool.query<{
        deleted: number;
        scanned: number;
        last_received_at: string | null;
        last_event_uuid: string | null;
      }>({
        name: "webhooks_retention_events",
        text: RETENTION_SQL.purgeEvents,
        values: [cutoff, limit, from.receivedAt, from.eventUuid],
      });
      const row = rows[0]!;
      const last =
        row.last_received_at !== null && row.last_event_uuid !== null
          ? { receivedAt: row.last_received_at, eventUuid: row.last_event_uuid }
          : null;
      return { deleted: row.deleted, scanned: row.scanned, last };
    });
  }
}
