import type { LegacyDb } from "@svc/db";

/**
 * `db`, except that a statement `matches` first holds one of its connections for `ms`
 * (`DO SLEEP`), as a statement that grows with a large table does: for tests of timeouts and of
 * which pool runs what.
 */
export function slowStatements(db: LegacyDb, matches: RegExp, ms: number): LegacyDb {
  return {
    ...db,
    query: async <T>(sql: string, params?: ReadonlyArray<unknown>) => {
      if (matches.test(sql)) await db.query(`DO SLEEP(${ms / 1000})`);
      return db.query<T>(sql, params);
    },
  };
}
