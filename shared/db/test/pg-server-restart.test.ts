import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivatePostgres, type PrivatePostgres } from "@svc/testing";
import { DependencyUnavailableError } from "@svc/errors";
import { createDrizzle, createPgPool, guardPg } from "../src/index.ts";

// A server that shuts down sends every session "terminating connection due to administrator
// command" (57P01). A session checked out of the pool but between two queries (inside a
// transaction) receives it as an 'error' event, which unhandled ends the process. A private
// server, so it can be stopped.
let server: PrivatePostgres;
beforeAll(async () => void (server = await startPrivatePostgres()), 60_000);
afterAll(async () => server?.cleanup());

describe("the pool across a PostgreSQL shutdown", () => {
  it("survives the shutdown notice on a checked-out client, answers 503 on it, and works again after the restart", async () => {
    const pool = createPgPool({
      url: server.url,
      schema: "public",
      applicationName: "restart-test",
    });
    try {
      const client = await pool.connect();
      await client.query("SELECT 1");
      await server.stop();
      await expect(guardPg(() => client.query("SELECT 1"))).rejects.toBeInstanceOf(
        DependencyUnavailableError,
      );
      client.release();
      await server.start();
      expect((await pool.query("SELECT 2 AS n")).rows).toEqual([{ n: 2 }]);
    } finally {
      await pool.end();
    }
  }, 60_000);

  it("turns a transaction cut by the shutdown into a 503, not a crash or a 500", async () => {
    const pool = createPgPool({
      url: server.url,
      schema: "public",
      applicationName: "restart-test",
    });
    try {
      const db = createDrizzle(pool, {});
      const work = guardPg(() =>
        db.transaction(async (tx) => {
          await tx.execute(sql`SELECT 1`);
          await server.stop();
          await tx.execute(sql`SELECT 1`);
        }),
      );
      await expect(work).rejects.toBeInstanceOf(DependencyUnavailableError);
      await server.start();
      expect((await pool.query("SELECT 3 AS n")).rows).toEqual([{ n: 3 }]);
    } finally {
      await pool.end();
    }
  }, 60_000);
});
