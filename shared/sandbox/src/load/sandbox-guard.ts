import type { Connection, RowDataPacket } from "mysql2/promise";
import { DATA_TABLES } from "@svc/legacy";

/**
 * Ownership of a database. The generator only ever writes into a database that is empty or that it
 * marked as its own: the marker table is created *before* any other table, so every table in a
 * marked database is one the generator created. A database holding any other table — including a
 * real legacy database, whose tables have the very same names but no marker — is refused.
 */
export const MARKER_TABLE = "zz_sandbox_marker";
export const GENERATOR_NAME = "@svc/legacy sandbox generator";

export const MARKER_DDL = `CREATE TABLE ${MARKER_TABLE} (
  id TINYINT UNSIGNED NOT NULL,
  generator VARCHAR(60) NOT NULL,
  schema_version INT NOT NULL,
  seed BIGINT UNSIGNED NOT NULL,
  scale DOUBLE NOT NULL,
  reference_date DATE NOT NULL,
  status VARCHAR(10) NOT NULL,
  started_at DATETIME NULL,
  completed_at DATETIME NULL,
  PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`;

export type Marker = {
  schemaVersion: number;
  seed: number;
  scale: number;
  today: string;
  status: "loading" | "complete";
};

export type DatabaseState =
  | { kind: "missing" }
  | { kind: "empty" }
  | { kind: "sandbox"; marker: Marker }
  | { kind: "foreign"; tables: string[]; reason: string };

/**
 * Thrown instead of writing into a database the generator does not own. Nothing has been written.
 */
export class SandboxRefusedError extends Error {
  readonly database: string;
  readonly tables: readonly string[];
  constructor(database: string, tables: readonly string[], reason: string) {
    super(
      `refusing to write sandbox data into database "${database}": ${reason}. ` +
        `Found tables: ${tables.join(", ") || "(none)"}. ` +
        `Only an empty database or one carrying the ${MARKER_TABLE} marker of this generator is written to; ` +
        `choose another database name or drop this one yourself if it really is disposable.`,
    );
    this.name = "SandboxRefusedError";
    this.database = database;
    this.tables = tables;
  }
}

const DATABASE_NAME = /^[A-Za-z0-9_]{1,64}$/;

export function assertDatabaseName(database: string): void {
  if (!DATABASE_NAME.test(database))
    throw new RangeError(
      `database name must match ${DATABASE_NAME}, got ${JSON.stringify(database)}`,
    );
}

async function readMarker(connection: Connection, database: string): Promise<Marker | null> {
  const [rows] = await connection.query<RowDataPacket[]>(
    `SELECT generator, schema_version, seed, scale, reference_date, status FROM ${connection.escapeId(database)}.${MARKER_TABLE} WHERE id = 1`,
  );
  const row = rows[0];
  if (
    !row ||
    row.generator !== GENERATOR_NAME ||
    (row.status !== "loading" && row.status !== "complete")
  )
    return null;
  return {
    schemaVersion: Number(row.schema_version),
    seed: Number(row.seed),
    scale: Number(row.scale),
    today: String(row.reference_date).slice(0, 10),
    status: row.status,
  };
}

/** What the database holds, from the generator's point of view. Reads only. */
export async function inspectDatabase(
  connection: Connection,
  database: string,
): Promise<DatabaseState> {
  assertDatabaseName(database);
  const [schemas] = await connection.query<RowDataPacket[]>(
    "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
    [database],
  );
  if (schemas.length === 0) return { kind: "missing" };
  const [rows] = await connection.query<RowDataPacket[]>(
    "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME",
    [database],
  );
  const tables = rows.map((r) => String(r.name));
  if (tables.length === 0) return { kind: "empty" };
  if (!tables.includes(MARKER_TABLE)) {
    return {
      kind: "foreign",
      tables,
      reason: `it holds tables but no ${MARKER_TABLE} marker, so they were not created by this generator`,
    };
  }
  const known = new Set<string>([MARKER_TABLE, ...DATA_TABLES]);
  const unknown = tables.filter((t) => !known.has(t));
  if (unknown.length > 0)
    return {
      kind: "foreign",
      tables,
      reason: `it holds tables this generator did not create (${unknown.join(", ")})`,
    };
  const marker = await readMarker(connection, database);
  if (!marker)
    return {
      kind: "foreign",
      tables,
      reason: `its ${MARKER_TABLE} table was not written by this generator`,
    };
  return { kind: "sandbox", marker };
}
