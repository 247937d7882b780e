import pg from "pg";

/**
 * A pool for a test's own temp database. Like createPgPool, it ignores errors of idle clients:
 * pool.end() resolves before its sockets are closed, and DROP DATABASE … WITH (FORCE) right after
 * terminates them; unhandled, that 57P01 would surface as an error of the test file.
 */
export function testPool(url: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on("error", () => undefined);
  return pool;
}
