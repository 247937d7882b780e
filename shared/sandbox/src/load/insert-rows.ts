import type { Connection } from "mysql2/promise";

/**
 * Multi-row INSERTs of at most ~`maxBytes` each. While the server executes one batch the next is
 * built, so row generation and the database work overlap (the two cores of a CI machine both
 * busy); never more than one batch is in flight, which bounds memory at benchmark scale.
 */
export type InsertOptions = { maxBytes?: number };

const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;

function valueList(
  connection: Connection,
  row: Record<string, unknown>,
  columns: readonly string[],
): string {
  let out = "(";
  for (let i = 0; i < columns.length; i++) {
    const value = row[columns[i] as string];
    if (i > 0) out += ",";
    out +=
      value === null || value === undefined
        ? "NULL"
        : typeof value === "number"
          ? String(value)
          : connection.escape(value);
  }
  return `${out})`;
}

/** Inserts every row, in order; returns the number of rows written. */
export async function insertRows(
  connection: Connection,
  table: string,
  columns: readonly string[],
  rows: Iterable<object>,
  options: InsertOptions = {},
): Promise<number> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const head = `INSERT INTO ${connection.escapeId(table)} (${columns.map((c) => connection.escapeId(c)).join(",")}) VALUES `;
  let pending: Promise<unknown> = Promise.resolve();
  let batch: string[] = [];
  let bytes = 0;
  let count = 0;
  const flush = async (): Promise<void> => {
    const sql = head + batch.join(",");
    batch = [];
    bytes = 0;
    await pending;
    pending = connection.query(sql);
    // The rejection is observed by the next await; this only keeps Node from reporting it early.
    pending.catch(() => undefined);
  };
  for (const row of rows) {
    const values = valueList(connection, row as Record<string, unknown>, columns);
    batch.push(values);
    bytes += values.length + 1;
    count++;
    if (bytes >= maxBytes) await flush();
  }
  if (batch.length > 0) await flush();
  await pending;
  return count;
}
