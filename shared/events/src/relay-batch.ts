import type pg from "pg";
import { makeHeaders, publish, setTraceContext } from "@svc/messaging";
import type { JetStreamClient, MsgHdrs, Names, PubAck } from "@svc/messaging";
import type { EventPayload } from "./event.ts";
import { withTransaction } from "./pg-transaction.ts";

type OutboxRow = {
  id: string;
  event_uuid: string;
  event_type: string;
  payload: EventPayload;
  trace_context: Record<string, string> | null;
};

export type BatchOptions = {
  pool: pg.Pool;
  /** Checked schema name (quoted into the SQL). */
  schema: string;
  js: JetStreamClient;
  names: Names;
  batchSize: number;
  publishTimeoutMs: number;
  /** Test seam: runs after the batch's PubAcks arrived and before the rows are marked sent. */
  afterPublish?: (eventUuids: string[]) => Promise<void> | void;
};

export type BatchOutcome = {
  claimed: number;
  /** Rows the stream acknowledged and that are now marked sent. */
  sent: number;
  /** Of those, how many the stream already held (a re-publish inside the duplicate window). */
  duplicates: number;
  /** The first transient publish failure (NATS down, timeout, no stream); those rows stay pending. */
  error?: unknown;
  /**
   * Rows that can never be published (their event type makes no valid subject). They stay
   * pending for an operator to fix or delete, and must not hold back every other row.
   */
  unpublishable: string[];
};

/**
 * One relay step: claim up to `batchSize` pending rows, publish them pipelined, mark the
 * acknowledged ones sent, commit. The row locks are held while publishing, so a concurrent relay
 * skips these rows (SKIP LOCKED) instead of publishing them too; if this process dies anywhere
 * before COMMIT, the locks go with its session and the rows are pending again: republished later
 * with the same Nats-Msg-Id, which the stream's duplicate window turns into a no-op.
 */
export function relayBatch(o: BatchOptions): Promise<BatchOutcome> {
  return withTransaction(o.pool, async (client) => {
    await client.query(sessionSettings(o.publishTimeoutMs));
    const { rows } = await client.query<OutboxRow>(
      `SELECT id, event_uuid, event_type, payload, trace_context FROM "${o.schema}".outbox
       WHERE sent_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [o.batchSize],
    );
    if (rows.length === 0) return { claimed: 0, sent: 0, duplicates: 0, unpublishable: [] };
    // Pipelined: every publish is in flight at once and the PubAcks are awaited together.
    const results = await Promise.allSettled(rows.map((row) => publishRow(o, row)));
    const acked = rows.flatMap((row, i) => (results[i]?.status === "fulfilled" ? [row] : []));
    await o.afterPublish?.(acked.map((r) => r.event_uuid));
    if (acked.length > 0) {
      await client.query(`UPDATE "${o.schema}".outbox SET sent_at = now() WHERE id = ANY($1::bigint[])`, [acked.map((r) => r.id)]);
    }
    const duplicates = results.filter((r) => r.status === "fulfilled" && r.value.duplicate).length;
    const permanent = (r: PromiseSettledResult<PubAck> | undefined) => r?.status === "rejected" && r.reason instanceof RangeError;
    const unpublishable = rows.filter((_, i) => permanent(results[i])).map((r) => r.event_uuid);
    const failure = results.find((r): r is PromiseRejectedResult => r.status === "rejected" && !permanent(r));
    return { claimed: rows.length, sent: acked.length, duplicates, unpublishable, ...(failure && { error: failure.reason }) };
  });
}

// async: a bad event type (names() throws a RangeError) fails this row, not the whole batch.
async function publishRow(o: BatchOptions, row: OutboxRow): Promise<PubAck> {
  return publish(o.js, o.names.eventSubject(row.event_type), row.payload, {
    msgId: row.event_uuid,
    headers: traceHeaders(row.trace_context),
    timeoutMs: o.publishTimeoutMs,
  });
}

/** The producing operation's W3C trace context, so the trace continues into the dispatcher. */
function traceHeaders(stored: Record<string, string> | null): MsgHdrs {
  const h = makeHeaders();
  const traceparent = stored?.traceparent;
  if (traceparent) setTraceContext(h, { traceparent, ...(stored.tracestate && { tracestate: stored.tracestate }) });
  return h;
}

/**
 * Per-transaction settings of a relay batch.
 * - synchronous_commit off: a "sent" mark lost to a database crash only makes the row pending
 *   again, and its re-publish is a duplicate the stream absorbs; the commit need not wait for a
 *   WAL flush.
 * - enable_sort off: the claim must walk the pending index in id order; with statistics gone
 *   stale after a burst, the planner would otherwise sort every pending row on each batch.
 * - idle_in_transaction_session_timeout: a relay that froze or lost its network mid-batch holds
 *   row locks that other relays skip; the server ends its session soon after the longest
 *   legitimate pause (the publish), so the rows come back to the others in seconds, not after
 *   the OS's TCP keepalive (hours, beyond the duplicate window).
 */
function sessionSettings(publishTimeoutMs: number): string {
  const idleMs = Math.round(2 * publishTimeoutMs + 1_000);
  return `SET LOCAL synchronous_commit = off; SET LOCAL enable_sort = off; SET LOCAL idle_in_transaction_session_timeout = ${idleMs}`;
}
