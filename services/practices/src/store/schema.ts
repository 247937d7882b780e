import { boolean, date, index, pgSchema, text, timestamp } from "drizzle-orm/pg-core";
import { changeCursorTable, changeStateTable, outboxTable } from "@svc/events";

/** The practices service's own schema; no other service reads it. */
export const practices = pgSchema("practices");

/**
 * Change detection over the legacy practices (shared/events README "Tables"): the last canonical
 * hash per practice, the incremental cursor, and the outbox the relay publishes from.
 */
export const outbox = outboxTable(practices);
export const changeState = changeStateTable(practices);
export const changeCursor = changeCursorTable(practices);

/**
 * The CRM mirror (production only): the latest version of each account the external CRM wrote,
 * versioned by the CRM's own `modified_on`. A delete keeps the row as a tombstone (`deleted`,
 * fields cleared) so an older upsert arriving after it is recognised and ignored.
 */
export const crmAccounts = practices.table(
  "crm_accounts",
  {
    crmId: text("crm_id").primaryKey(),
    name: text("name"),
    alias: text("alias"),
    organisationType: text("organisation_type"),
    language: text("language"),
    vat: text("vat"),
    street: text("street"),
    postalCode: text("postal_code"),
    city: text("city"),
    province: text("province"),
    country: text("country"),
    email: text("email"),
    phone: text("phone"),
    periodStart: date("period_start", { mode: "string" }),
    periodStop: date("period_stop", { mode: "string" }),
    /** The CRM's modification time of this version; a write wins only when strictly newer. */
    modifiedOn: timestamp("modified_on", {
      withTimezone: true,
      precision: 6,
      mode: "string",
    }).notNull(),
    deleted: boolean("deleted").notNull().default(false),
    /** When this service stored the version (its own clock), for operations, never for ordering. */
    receivedAt: timestamp("received_at", {
      withTimezone: true,
      precision: 3,
      mode: "string",
    }).notNull(),
  },
  // The writer's read-back list walks (modified_on, crm_id).
  (t) => [index("crm_accounts_modified_on").on(t.modifiedOn, t.crmId)],
);
