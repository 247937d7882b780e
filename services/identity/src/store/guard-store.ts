import pg from "pg";
import { DrizzleQueryError } from "drizzle-orm";
import { isPgConnectionFailure } from "@svc/db";
import { DependencyUnavailableError } from "@svc/errors";

/**
 * A database failure with nothing in it but the server's code, constraint and primary message.
 * drizzle's DrizzleQueryError carries the query parameters (lookup hashes, ids) in its message and
 * PostgreSQL's errors carry row values in `detail`; either would reach a log line as is.
 */
export class StoreFailure extends Error {
  readonly code: string | undefined;
  readonly constraint: string | undefined;
  constructor(cause: unknown) {
    const e = (cause ?? {}) as {
      code?: string;
      constraint?: string;
      message?: string;
      name?: string;
    };
    super(`database operation failed: ${e.message ?? e.name ?? "unknown error"}`);
    this.name = "StoreFailure";
    this.code = e.code;
    this.constraint = e.constraint;
  }
}

function isDatabaseError(err: unknown): boolean {
  return (
    err instanceof DrizzleQueryError ||
    err instanceof pg.DatabaseError ||
    isPgConnectionFailure(err)
  );
}

/**
 * Runs a store operation: an unreachable database becomes 503 (guardPg's rule, applied to the
 * error drizzle wraps), other database errors lose their parameters, and errors of our own
 * (domain errors thrown inside a transaction) pass through unchanged.
 */
export async function guardStore<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!isDatabaseError(err)) throw err;
    const root = err instanceof DrizzleQueryError ? err.cause : err;
    const failure = new StoreFailure(root);
    if (isPgConnectionFailure(root))
      throw new DependencyUnavailableError("the service database", failure);
    throw failure;
  }
}
