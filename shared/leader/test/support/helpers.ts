import { createPgPool } from "@svc/db";
import { createTempPgDatabase } from "@svc/testing";
import type pg from "pg";
import { advisoryLockKey } from "../../src/index.ts";

export { recordingLogger, sleep, waitFor } from "@svc/testing";

/** A temporary database and two pools on it: two processes competing for the same locks. */
export async function twoProcesses(): Promise<{
  url: string;
  pools: [pg.Pool, pg.Pool];
  close(): Promise<void>;
}> {
  const database = await createTempPgDatabase("leader");
  const open = (name: string) =>
    createPgPool({ url: database.url, schema: "public", applicationName: name });
  const pools: [pg.Pool, pg.Pool] = [open("leader-a"), open("leader-b")];
  return {
    url: database.url,
    pools,
    close: async () => {
      await Promise.all(pools.map((p) => p.end()));
      await database.drop();
    },
  };
}

/** Ends the PostgreSQL session holding the lock, as a crashed node or a network cut would. */
export async function killLockSession(pool: pg.Pool, name: string): Promise<number> {
  const u = BigInt.asUintN(64, advisoryLockKey(name));
  const { rowCount } = await pool.query(
    `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND classid = $1::oid AND objid = $2::oid`,
    [String(u >> 32n), String(u & 0xffffffffn)],
  );
  return rowCount ?? 0;
}

/** Sessions holding the lock `name` (0 or 1). */
export async function lockHolders(pool: pg.Pool, name: string): Promise<number> {
  const u = BigInt.asUintN(64, advisoryLockKey(name));
  const { rows } = await pool.query(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND classid = $1::oid AND objid = $2::oid`,
    [String(u >> 32n), String(u & 0xffffffffn)],
  );
  return rows.length;
}
