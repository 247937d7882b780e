import type pg from "pg";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import * as schema from "./schema.ts";

export type IdentityDb = NodePgDatabase<typeof schema> & { $client: pg.Pool };
/** A transaction's statements: drizzle over the one connection that holds the transaction. */
export type IdentityTx = NodePgDatabase<typeof schema>;

export function identityDb(pool: pg.Pool): IdentityDb {
  return drizzle(pool, { schema });
}

export function identityTx(client: pg.PoolClient): IdentityTx {
  return drizzle(client, { schema });
}

/**
 * Longest merge chain followed; merges never form cycles (domain/merge-candidates.ts), this is a
 * backstop.
 */
export const MAX_MERGE_DEPTH = 64;
