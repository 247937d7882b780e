import { createPgPool } from "@svc/db";
import { createTempPgDatabase } from "@svc/testing";
import type pg from "pg";
import { advisoryLockKey } from "../../src/index.ts";
import type { Logger } from "../../src/logger.ts";

export { sleep, waitFor } from "@svc/testing";

export type LogEntry = { level: "info" | "warn" | "error"; obj: object; msg: string };

/** A pino-shaped logger that keeps every line, so tests can assert on what was logged. */
export function recordingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry["level"]) => (obj: object, msg: string) =>
    void entries.push({ level, obj, msg });
  return { entries, info: at("info"), warn: at("warn"), error: at("error") };
}

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
