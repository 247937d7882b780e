import type pg from "pg";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import { createDrizzle } from "@svc/db";
import * as schema from "../db/schema.ts";

export type IdentityDb = NodePgDatabase<typeof schema>;
export type IdentityTx = Parameters<Parameters<IdentityDb["transaction"]>[0]>[0];

export function identityDb(pool: pg.Pool): IdentityDb {
  return createDrizzle(pool, schema);
}

/** Longest merge chain followed; merges never form cycles (domain/merge-candidates.ts), this is a backstop. */
export const MAX_MERGE_DEPTH = 64;
