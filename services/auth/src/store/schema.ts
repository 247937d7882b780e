import { sql } from "drizzle-orm";
import { boolean, check, index, pgSchema, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/** The auth service's own schema; no other service reads it. */
export const auth = pgSchema("auth");

export const clientStatus = auth.enum("client_status", ["active", "revoked"]);

/**
 * OAuth clients. The secret exists only as its argon2id hash (PHC string, parameters included).
 * Expiry is not a status: a client is expired once `expires_at` has passed.
 */
export const clients = auth.table(
  "clients",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    secretHash: text("secret_hash").notNull(),
    scopes: text("scopes").array().notNull(),
    status: clientStatus("status").notNull().default("active"),
    isCrmMirror: boolean("is_crm_mirror").notNull().default(false),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    rotatedAt: timestamp("rotated_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [
    // crm-mirror:write belongs to the dedicated CRM mirror client only.
    check(
      "clients_crm_mirror_scope",
      sql`${t.isCrmMirror} OR NOT ('crm-mirror:write' = ANY(${t.scopes}))`,
    ),
    check("clients_revoked_at", sql`(${t.status} = 'revoked') = (${t.revokedAt} IS NOT NULL)`),
    // "The dedicated CRM mirror client": at most one usable one at a time; replace it by rotating.
    uniqueIndex("clients_one_active_crm_mirror")
      .on(t.isCrmMirror)
      .where(sql`${t.isCrmMirror} AND ${t.status} = 'active'`),
    // The revocation reconciler reads exactly these rows.
    index("clients_revoked_or_expiring")
      .on(t.id)
      .where(sql`${t.status} = 'revoked' OR ${t.expiresAt} IS NOT NULL`),
  ],
);

export type ClientRow = typeof clients.$inferSelect;
export type NewClientRow = typeof clients.$inferInsert;
