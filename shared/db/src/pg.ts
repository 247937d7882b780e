import pg from "pg";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { DependencyUnavailableError } from "@svc/errors";

export interface PgOptions {
  url: string;
  /** The service's own schema; its tables and migration journal live there and nowhere else. */
  schema: string;
  applicationName: string;
  max?: number;
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function createPgPool(options: PgOptions): pg.Pool {
  if (!SCHEMA_NAME.test(options.schema)) throw new Error(`invalid schema name: ${options.schema}`);
  const statementTimeout = options.statementTimeoutMs ?? 5_000;
  const pool = new pg.Pool({
    connectionString: options.url,
    application_name: options.applicationName,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 2_000,
    idleTimeoutMillis: 30_000,
    // Server-side bound, plus a client-side one for a server that stops answering altogether.
    statement_timeout: statementTimeout,
    query_timeout: statementTimeout + 1_000,
    options: `-c search_path=${options.schema}`,
    keepAlive: true,
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on("error", () => undefined);
  // Neither may a checked-out one: a server shutting down tells every session so (57P01), also one
  // held between two queries of a transaction, and pg emits that as an 'error' event, which
  // unhandled ends the process. Its next query fails (a 503 through guardPg) and the pool drops it.
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}

/**
 * Opens `count` connections of the pool at once (it otherwise opens them one request at a time);
 * resolves with how many it opened. Idle ones close again after the pool's idle timeout.
 */
export async function openPgConnections(pool: pg.Pool, count: number): Promise<number> {
  const opened = await Promise.allSettled(Array.from({ length: count }, () => pool.connect()));
  for (const o of opened) if (o.status === "fulfilled") o.value.release();
  const failed = opened.find((o) => o.status === "rejected");
  if (failed) throw new DependencyUnavailableError("the service database", failed.reason);
  return opened.length;
}

export function createDrizzle<TSchema extends Record<string, unknown>>(
  pool: pg.Pool,
  schema: TSchema,
): NodePgDatabase<TSchema> {
  return drizzle(pool, { schema });
}

/** Stable 64-bit advisory-lock key for a name, so replicas migrating at once take turns. */
function lockKey(name: string): string {
  let h = 0xcbf29ce484222325n;
  for (const ch of Buffer.from(`migrate:${name}`))
    h = BigInt.asIntN(64, (h ^ BigInt(ch)) * 0x100000001b3n);
  return h.toString();
}

/**
 * Applies drizzle-kit's SQL migrations for one service schema, journal kept in that schema.
 * Serialised by an advisory lock: safe when several replicas (or the Job and a pod) start at once.
 */
export async function runMigrations(
  pool: pg.Pool,
  options: { schema: string; migrationsFolder: string },
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [lockKey(options.schema)]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
      await migrate(drizzle(client), {
        migrationsFolder: options.migrationsFolder,
        migrationsSchema: options.schema,
        migrationsTable: "__migrations",
      });
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [lockKey(options.schema)]);
    }
  } finally {
    client.release();
  }
}

const PG_CONNECTION_FAILURES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "EPIPE",
  "57P01",
  "57P03",
  "53300",
  "08000",
  "08003",
  "08006",
  "08001",
  "08004",
]);

/** True for a failure to reach PostgreSQL, also when wrapped (drizzle's `cause`). */
export function isPgConnectionFailure(err: unknown): boolean {
  for (
    let e = err as { code?: string; message?: string; cause?: unknown } | undefined, depth = 0;
    e && depth < 4;
    e = e.cause as typeof e, depth++
  ) {
    if (e.code && PG_CONNECTION_FAILURES.has(e.code)) return true;
    if (
      /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connect ECONNREFUSED|is not queryable/i.test(
        e.message ?? "",
      )
    )
      return true;
  }
  return false;
}

/** Runs an own-store operation; a database that cannot be reached becomes 503, not 500. */
export async function guardPg<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isPgConnectionFailure(err))
      throw new DependencyUnavailableError("the service database", err);
    throw err;
  }
}
