import { sql } from "drizzle-orm";
import {
  check,
  customType,
  index,
  integer,
  primaryKey,
  text,
  timestamp,
  type PgSchema,
} from "drizzle-orm/pg-core";

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });
const instant = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * Idempotency-Key records, defined inside the using service's own schema (put
 * `export const idempotencyKeys = idempotencyKeysTable(mySchema)` in its drizzle schema). The key
 * is stored as a SHA-256 (the client chooses its text), the request as a fingerprint; the first
 * response is kept verbatim (text, so a replay is byte-equal).
 */
export function idempotencyKeysTable(schema: PgSchema) {
  return schema.table(
    "idempotency_keys",
    {
      clientId: text("client_id").notNull(),
      keyHash: bytea("key_hash").notNull(),
      requestHash: bytea("request_hash").notNull(),
      state: text("state", { enum: ["in_progress", "completed"] }).notNull(),
      responseStatus: integer("response_status"),
      responseBody: text("response_body"),
      createdAt: instant("created_at").notNull(),
      expiresAt: instant("expires_at").notNull(),
      lockedUntil: instant("locked_until").notNull(),
    },
    (t) => [
      primaryKey({ name: "idempotency_keys_pkey", columns: [t.clientId, t.keyHash] }),
      index("idempotency_keys_expires_idx").on(t.expiresAt),
      check("idempotency_keys_state_check", sql`${t.state} IN ('in_progress', 'completed')`),
    ],
  );
}

export type IdempotencyKeysTable = ReturnType<typeof idempotencyKeysTable>;
