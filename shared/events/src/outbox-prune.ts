import type pg from "pg";

/**
 * Deletes sent rows older than `retentionMs`, `batchSize` rows per statement so no single delete
 * holds locks or bloats WAL for long. The ids come from the primary key in order (old rows have
 * low ids), so each statement stops after `batchSize` matches instead of scanning the table.
 * SKIP LOCKED lets several replicas prune at once without waiting on each other. Pending rows
 * (sent_at null) are never deleted, however old.
 */
export async function pruneOutbox(
  pool: pg.Pool,
  schema: string,
  retentionMs: number,
  batchSize: number,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result = await pool.query(
      `DELETE FROM "${schema}".outbox WHERE id IN (
         SELECT id FROM "${schema}".outbox
         WHERE sent_at IS NOT NULL AND sent_at < now() - $1 * interval '1 millisecond'
         ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [retentionMs, batchSize],
    );
    deleted += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < batchSize) return deleted;
  }
}
