import { sql } from "drizzle-orm";
import { boolean, customType, date, index, text, timestamp } from "drizzle-orm/pg-core";
import type { PgSchema } from "drizzle-orm/pg-core";

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

/**
 * What the detector last emitted for each record of one source, in the service's own schema
 * (`export const changeState = changeStateTable(mySchema)` in its drizzle schema). A second source
 * in the same schema gets its own table name.
 */
export function changeStateTable(schema: PgSchema, name = "change_state") {
  return schema.table(
    name,
    {
      entityId: text("entity_id").primaryKey(),
      /** SHA-256 of the canonical JSON last emitted (kept for deleted rows too). */
      hash: bytea("hash").notNull(),
      /** The next calendar date the canonical form may change without a source write. */
      recheckOn: date("recheck_on", { mode: "string" }),
      /** When a pass last wrote this row (detector clock); guards a sweep's delete detection. */
      seenAt: timestamp("seen_at", { withTimezone: true }).notNull(),
      /**
       * The source's digest of the record `hash` was computed from (SweepDigests),
       * or null: a sweep by digest reads a record in full unless its digest is this one.
       */
      sourceDigest: bytea("source_digest"),
      /** A `deleted` event was emitted; kept so the delete is reported once. */
      deleted: boolean("deleted").notNull().default(false),
    },
    // Every pass asks for the due rows in (recheck_on, entity_id) order; partial, so it holds
    // only the scheduled rows.
    (t) => [
      index(`${name}_recheck_idx`)
        .on(t.recheckOn, t.entityId)
        .where(sql`recheck_on IS NOT NULL AND NOT deleted`),
    ],
  );
}

/** One row per source: the incremental cursor, the baseline marker and the last full sweep. */
export function changeCursorTable(schema: PgSchema) {
  return schema.table("change_cursor", {
    source: text("source").primaryKey(),
    /**
     * Source wall-clock time (`YYYY-MM-DD HH:MM:SS`) the next incremental pass reads from (minus
     * the overlap).
     */
    modifiedAfterLocal: text("modified_after_local").notNull(),
    /** When the baseline was recorded; the row's existence means "baseline done". */
    baselineAt: timestamp("baseline_at", { withTimezone: true }).notNull(),
    sweptAt: timestamp("swept_at", { withTimezone: true }),
    /** The source's digest version (SweepDigests) of the last full sweep; null: none. */
    digestVersion: text("digest_version"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  });
}

export type ChangeStateTable = ReturnType<typeof changeStateTable>;
export type ChangeCursorTable = ReturnType<typeof changeCursorTable>;
