import { createHash, randomBytes } from "node:crypto";
import type { Connection, RowDataPacket } from "mysql2/promise";
import { testEnv } from "@svc/testing";
import { DATA_TABLES } from "@svc/legacy";
import type { LegacyTable } from "@svc/legacy";
import { openServerConnection } from "../../src/load/connection.ts";
import { COLUMNS, PRIMARY_KEYS } from "../../src/generator/rows.ts";

/** A fixed reference date for tests, so "today"-relative fixtures land on known dates. */
export const TEST_TODAY = "2025-06-15";

export const mysqlUrl = (): string => testEnv.TEST_MYSQL_URL;

/** A unique database name per call, so test files can run in parallel against one server. */
export function uniqueDatabaseName(): string {
  return `legacy_t_${randomBytes(5).toString("hex")}`;
}

export async function openConnection(): Promise<Connection> {
  return openServerConnection(mysqlUrl());
}

export async function dropDatabase(connection: Connection, database: string): Promise<void> {
  await connection.query(`DROP DATABASE IF EXISTS ${connection.escapeId(database)}`);
}

/** SHA-256 of every row of a table in primary-key order: equal hashes mean identical dumps. */
export async function tableHash(
  connection: Connection,
  database: string,
  table: LegacyTable,
): Promise<string> {
  const columns = (COLUMNS[table] as readonly string[])
    .map((c) => connection.escapeId(c))
    .join(",");
  const [rows] = await connection.query<RowDataPacket[]>({
    sql: `SELECT ${columns} FROM ${connection.escapeId(database)}.${connection.escapeId(table)} ORDER BY ${connection.escapeId(String(PRIMARY_KEYS[table]))}`,
    rowsAsArray: true,
  });
  return createHash("sha256").update(JSON.stringify(rows)).digest("hex");
}

export async function databaseHashes(
  connection: Connection,
  database: string,
): Promise<Record<LegacyTable, string>> {
  const hashes = {} as Record<LegacyTable, string>;
  for (const table of DATA_TABLES) hashes[table] = await tableHash(connection, database, table);
  return hashes;
}

/** The single number a `SELECT COUNT(*) AS n ...` (or any query aliasing `n`) returns. */
export async function count(
  connection: Connection,
  sql: string,
  params: unknown[] = [],
): Promise<number> {
  const [rows] = await connection.query<RowDataPacket[]>(sql, params);
  return Number(rows[0]?.n);
}
