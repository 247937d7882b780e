import type pg from "pg";
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from "@opentelemetry/api";
import { makeHeaders, publish, setTraceContext } from "@svc/messaging";
import type { JetStreamClient, MsgHdrs, Names, PubAck, TraceContext } from "@svc/messaging";
import type { EventPayload } from "./event.ts";
import { withTransaction } from "./pg-transaction.ts";
import { contextFrom, traceContextOf, tracer } from "./telemetry.ts";

type OutboxRow = {
  id: string;
  event_uuid: string;
  event_type: string;
  payload: EventPayload;
  trace_context: TraceContext | null;
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
  /**
   * The first transient publish failure (NATS down, timeout, no stream); those rows stay pending.
   */
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
  const startTime = Date.now();
  return withTransaction(o.pool, async (client) => {
    await client.query(sessionSettings(o.publishTimeoutMs));
    const { rows } = await client.query<OutboxRow>(
      `SELECT id, event_uuid, event_type, payload, trace_context FROM "${o.schema}".outbox
       WHERE sent_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [o.batchSize],
    );
    if (rows.length === 0) return { claimed: 0, sent: 0, duplicates: 0, unpublishable: [] };
    // A span only for batches that found work: an idle poll every 200 ms is no operation worth a
    // trace.
    const span = tracer.startSpan("outbox relay batch", {
      root: true,
      startTime,
      attributes: {
        "messaging.system": "nats",
        "messaging.batch.message_count": rows.length,
        "db.namespace": o.schema,
      },
    });
    try {
      const outcome = await context.with(trace.setSpan(ROOT_CONTEXT, span), () =>
        publishClaimed(o, client, rows, span),
      );
      span.setAttributes({ "outbox.sent": outcome.sent, "outbox.duplicates": outcome.duplicates });
      if (outcome.error !== undefined || outcome.unpublishable.length > 0)
        span.setStatus({ code: SpanStatusCode.ERROR, message: "some rows were not published" });
      return outcome;
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

async function publishClaimed(
  o: BatchOptions,
  client: pg.PoolClient,
  rows: OutboxRow[],
  batch: Span,
): Promise<BatchOutcome> {
  // Pipelined: every publish is in flight at once and the PubAcks are awaited together.
  const results = await Promise.allSettled(rows.map((row) => publishRow(o, row, batch)));
  const acked = rows.flatMap((row, i) => (results[i]?.status === "fulfilled" ? [row] : []));
  await o.afterPublish?.(acked.map((r) => r.event_uuid));
  if (acked.length > 0) {
    await client.query(
      `UPDATE "${o.schema}".outbox SET sent_at = now() WHERE id = ANY($1::bigint[])`,
      [acked.map((r) => r.id)],
    );
  }
  const duplicates = results.filter((r) => r.status === "fulfilled" && r.value.duplicate).length;
  const permanent = (r: PromiseSettledResult<PubAck> | undefined) =>
    r?.status === "rejected" && r.reason instanceof RangeError;
  const unpublishable = rows.filter((_, i) => permanent(results[i])).map((r) => r.event_uuid);
  const failure = results.find(
    (r): r is PromiseRejectedResult => r.status === "rejected" && !permanent(r),
  );
  return {
    claimed: rows.length,
    sent: acked.length,
    duplicates,
    unpublishable,
    ...(failure && { error: failure.reason }),
  };
}

/**
 * One row's publish, in a PRODUCER span that continues the trace of the operation that wrote the
 * row (its stored context; the batch's when it has none) and links to the relay batch. The span's
 * own context travels in the message headers, so the dispatcher's fan-out becomes its child.
 * async: a bad event type (names() throws a RangeError) fails this row, not the whole batch.
 */
async function publishRow(o: BatchOptions, row: OutboxRow, batch: Span): Promise<PubAck> {
  const parent = row.trace_context?.traceparent
    ? contextFrom(row.trace_context)
    : trace.setSpan(ROOT_CONTEXT, batch);
  const span = tracer.startSpan(
    `send ${row.event_type}`,
    {
      kind: SpanKind.PRODUCER,
      links: [{ context: batch.spanContext() }],
      attributes: {
        "messaging.system": "nats",
        "messaging.operation.type": "send",
        "messaging.message.id": row.event_uuid,
        "event.type": row.event_type,
      },
    },
    parent,
  );
  try {
    const subject = o.names.eventSubject(row.event_type);
    span.setAttribute("messaging.destination.name", subject);
    const ack = await publish(o.js, subject, row.payload, {
      msgId: row.event_uuid,
      headers: traceHeaders(traceContextOf(trace.setSpan(parent, span)) ?? row.trace_context),
      timeoutMs: o.publishTimeoutMs,
    });
    if (ack.duplicate) span.setAttribute("messaging.nats.duplicate", true);
    return ack;
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * The trace context to continue in the dispatcher: the publish span's, or the stored one untouched.
 */
function traceHeaders(carried: TraceContext | null | undefined): MsgHdrs {
  const h = makeHeaders();
  return carried?.traceparent ? setTraceContext(h, carried) : h;
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
