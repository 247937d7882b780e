import { pgSchema } from "drizzle-orm/pg-core";
import { changeCursorTable, changeStateTable, outboxTable } from "@svc/events";

/**
 * The vacancies service's own store. Vacancies themselves live in the legacy database (read-only);
 * this schema holds only what change detection needs: the last canonical hash per vacancy, the
 * incremental cursor, and the outbox the relay publishes from (shared/events README "Tables").
 */
export const vacanciesSchema = pgSchema("vacancies");

export const outbox = outboxTable(vacanciesSchema);
export const changeState = changeStateTable(vacanciesSchema);
export const changeCursor = changeCursorTable(vacanciesSchema);
