/**
 * Row counts and content checksums of every table of a PostgreSQL database (all non-system
 * schemas) and of a MySQL database, to prove that a run of requests changed nothing stored.
 */
import pg from "pg";
import { createConnection } from "mysql2/promise";
import type { RowDataPacket } from "mysql2";

export type StoreSnapshot = Record<string, { rows: number; checksum: string }>;

export interface PgSnapshotOptions {
  /**
   * Columns left out of the checksum, by table name (any schema): clocks that background work
   * advances by itself (a detector's last pass, a relay's sent mark), never request data.
   */
  ignoreColumns?: Record<string, ReadonlyArray<string>>;
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function snapshotPg(
  url: string,
  options: PgSnapshotOptions = {},
): Promise<StoreSnapshot> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: columns } = await client.query<{ schema: string; table: string; column: string }>(
      `SELECT c.table_schema AS schema, c.table_name AS table, c.column_name AS column
         FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
        WHERE c.table_schema NOT IN ('pg_catalog', 'information_schema') AND c.table_schema NOT LIKE 'pg_toast%'
        ORDER BY c.table_schema, c.table_name, c.ordinal_position`,
    );
    const tables = new Map<string, { schema: string; table: string; columns: string[] }>();
    for (const c of columns) {
      const key = `${c.schema}.${c.table}`;
      const entry = tables.get(key) ?? { schema: c.schema, table: c.table, columns: [] };
      if (!(options.ignoreColumns?.[c.table] ?? []).includes(c.column))
        entry.columns.push(c.column);
      tables.set(key, entry);
    }
    const snapshot: StoreSnapshot = {};
    for (const [key, t] of tables) {
      const list = t.columns.length > 0 ? t.columns.map(ident).join(", ") : "1";
      const { rows } = await client.query<{ rows: number; checksum: string | null }>(
        `SELECT count(*)::int AS rows, md5(string_agg(r::text, E'\\n' ORDER BY r::text)) AS checksum
           FROM (SELECT ${list} FROM ${ident(t.schema)}.${ident(t.table)}) r`,
      );
      snapshot[`pg:${key}`] = { rows: rows[0]?.rows ?? 0, checksum: rows[0]?.checksum ?? "" };
    }
    return snapshot;
  } finally {
    await client.end();
  }
}

export async function snapshotMysql(serverUrl: string, database: string): Promise<StoreSnapshot> {
  const c = await createConnection({ uri: serverUrl });
  try {
    const [tables] = await c.query<Array<{ name: string } & RowDataPacket>>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name",
      [database],
    );
    const snapshot: StoreSnapshot = {};
    for (const { name } of tables) {
      const qualified = `\`${database}\`.\`${name}\``;
      const [[count]] = await c.query<Array<{ n: number } & RowDataPacket>>(
        `SELECT count(*) AS n FROM ${qualified}`,
      );
      const [[sum]] = await c.query<Array<{ Checksum: number | string | null } & RowDataPacket>>(
        `CHECKSUM TABLE ${qualified} EXTENDED`,
      );
      snapshot[`mysql:${database}.${name}`] = {
        rows: Number(count?.n ?? 0),
        checksum: String(sum?.Checksum ?? ""),
      };
    }
    return snapshot;
  } finally {
    await c.end();
  }
}

/** The tables whose count or checksum differs, as readable lines. */
export function snapshotDifferences(before: StoreSnapshot, after: StoreSnapshot): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  const out: string[] = [];
  for (const name of [...names].sort()) {
    const a = before[name];
    const b = after[name];
    if (!a || !b) out.push(`${name}: ${a ? "dropped" : "created"}`);
    else if (a.rows !== b.rows || a.checksum !== b.checksum)
      out.push(
        `${name}: rows ${a.rows} → ${b.rows}${a.checksum === b.checksum ? "" : ", content changed"}`,
      );
  }
  return out;
}
