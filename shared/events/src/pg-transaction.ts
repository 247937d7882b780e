import type pg from "pg";

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A schema or table name, checked, so it can be quoted into SQL text (it cannot be a bind
 * parameter).
 */
export function checkedIdentifier(name: string): string {
  if (!IDENTIFIER.test(name))
    throw new RangeError(`invalid schema or table name: ${JSON.stringify(name)}`);
  return name;
}

/**
 * Runs `work` in a transaction on one pooled client. A failed transaction's client is destroyed
 * instead of rolled back: after a cut or paused connection a ROLLBACK would wait for a dead socket
 * (or queue behind a timed-out query), and closing the session makes the server roll back anyway.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let failed = false;
  // A checked-out client whose socket dies emits 'error'; unhandled, that would kill the process.
  // The query in flight rejects with the same error, which is what the caller sees.
  const onError = () => void (failed = true);
  client.on("error", onError);
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    // A discarded client keeps its listener: a late socket error must not escape either.
    if (failed) client.release(true);
    else {
      client.removeListener("error", onError);
      client.release();
    }
  }
}
