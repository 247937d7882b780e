import { sql } from "drizzle-orm";
import { bigserial, index, jsonb, text, timestamp, uuid, type PgSchema } from "drizzle-orm/pg-core";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type { TraceContext } from "@svc/messaging";
import type { EventPayload } from "./event.ts";

/**
 * The transactional outbox table, defined inside each emitting service's own schema (put
 * `export const outbox = outboxTable(mySchema)` in the service's drizzle schema so drizzle-kit
 * generates it). Rows are written in the same transaction as the change they report; the relay
 * publishes pending rows (sent_at null) and marks them sent.
 */
export function outboxTable(schema: PgSchema) {
  return schema.table(
    "outbox",
    {
      id: bigserial("id", { mode: "number" }).primaryKey(),
      eventUuid: uuid("event_uuid").notNull().unique(),
      eventType: text("event_type").notNull(),
      payload: jsonb("payload").$type<EventPayload>().notNull(),
      /** W3C trace context of the operation that produced the event (traceparent, tracestate). */
      traceContext: jsonb("trace_context").$type<TraceContext>(),
      createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
      sentAt: timestamp("sent_at", { withTimezone: true }),
    },
    // Partial index over pending rows: the relay's scan stays small however many sent rows remain.
    (t) => [
      index("outbox_pending_idx")
        .on(t.id)
        .where(sql`sent_at IS NULL`),
    ],
  );
}

export type OutboxTable = ReturnType<typeof outboxTable>;

/** Any drizzle PostgreSQL database or transaction handle. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PgExecutor = PgDatabase<PgQueryResultHKT, any, any>;

/**
 * Writes events to the outbox. Call it with the transaction that makes the change, so the event
 * exists if and only if the change does. Re-writing the same event_uuid is a no-op.
 *
 * The one other writer is identity's application write, which must stay one round trip: the
 * plpgsql function identity.record_application inserts the same columns with the same conflict
 * rule (docs/decisions/application-write-path.md).
 */
export async function enqueueEvents(
  tx: PgExecutor,
  outbox: OutboxTable,
  events: EventPayload[],
  traceContext?: TraceContext,
): Promise<void> {
  if (events.length === 0) return;
  await tx
    .insert(outbox)
    .values(
      events.map((e) => ({
        eventUuid: e.event_uuid,
        eventType: e.event_type,
        payload: e,
        traceContext: traceContext ?? null,
      })),
    )
    .onConflictDoNothing({ target: outbox.eventUuid });
}
