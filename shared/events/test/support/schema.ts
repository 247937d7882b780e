import { generateDrizzleJson, generateMigration } from "drizzle-kit/api";
import { pgSchema } from "drizzle-orm/pg-core";
import type pg from "pg";
import { changeCursorTable, changeStateTable, outboxTable } from "../../src/index.ts";

/**
 * The DDL drizzle-kit generates from this package's table factories, exactly what a service's
 * migration will contain; tests create their tables with it, so the factories are what is tested.
 */
export async function eventTablesDdl(
  schemaName: string,
  stateTables: string[] = ["change_state"],
): Promise<string[]> {
  const schema = pgSchema(schemaName);
  const tables: Record<string, unknown> = {
    schema,
    outbox: outboxTable(schema),
    cursor: changeCursorTable(schema),
  };
  for (const name of stateTables) tables[name] = changeStateTable(schema, name);
  return generateMigration(generateDrizzleJson({}), generateDrizzleJson(tables));
}

export async function createEventTables(
  pool: pg.Pool,
  schemaName: string,
  stateTables?: string[],
): Promise<void> {
  for (const statement of await eventTablesDdl(schemaName, stateTables))
    await pool.query(statement);
}
