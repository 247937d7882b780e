import { randomBytes } from "node:crypto";
import { drizzle } from "drizzle-orm/node-postgres";
import { pgSchema } from "drizzle-orm/pg-core";
import type pg from "pg";
import { buildEvent, enqueueEvents, outboxTable } from "../../src/index.ts";
import type { EventPayload } from "../../src/index.ts";
import type { TraceContext } from "@svc/messaging";
import { createEventTables } from "./schema.ts";

/** A schema of its own for one test, with the outbox and change-detection tables in it. */
export async function freshSchema(pool: pg.Pool, prefix = "s"): Promise<string> {
  const schema = `${prefix}_${randomBytes(4).toString("hex")}`;
  await createEventTables(pool, schema);
  return schema;
}

/** Writes `count` vacancy.updated events to the outbox, 500 per transaction. */
export async function enqueueMany(
  pool: pg.Pool,
  schema: string,
  count: number,
  traceContext?: TraceContext,
): Promise<EventPayload[]> {
  const outbox = outboxTable(pgSchema(schema));
  const events = Array.from({ length: count }, (_, i) =>
    buildEvent({
      type: "vacancy.updated",
      entityId: `v${i}`,
      publicBaseUrl: "https://api.example.test",
    }),
  );
  for (let i = 0; i < events.length; i += 500) {
    await drizzle(pool).transaction((tx) =>
      enqueueEvents(tx, outbox, events.slice(i, i + 500), traceContext),
    );
  }
  return events;
}

export async function pendingCount(pool: pg.Pool, schema: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM "${schema}".outbox WHERE sent_at IS NULL`,
  );
  return rows[0]?.n ?? 0;
}
