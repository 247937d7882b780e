import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgPool, runMigrations } from "@svc/db";
import { DependencyUnavailableError } from "@svc/http";
import { startPrivatePostgres, type PrivatePostgres } from "@svc/testing";
import { MIGRATIONS_FOLDER } from "../src/db/migrations.ts";
import { identityDb } from "../src/store/db.ts";
import { PgIdentityStore } from "../src/store/pg-identity-store.ts";

// PostgreSQL that hangs (SIGSTOP: connections open, nothing answered) in the middle of an
// application's transaction. The statement that hangs fails after the pool's query timeout; the
// transaction must then fail at once, not send a ROLLBACK that waits out a second timeout (the
// fault suite saw POST /v1/applications answer after 15 s with a 6 s query timeout).
let server: PrivatePostgres;
beforeAll(async () => void (server = await startPrivatePostgres()), 60_000);
afterAll(async () => server?.cleanup());

describe("the identity store when PostgreSQL hangs mid-transaction", () => {
  it("fails the transaction with 503 within one query timeout, and works again once the server answers", async () => {
    const statementTimeoutMs = 1_000; // the pool's client-side query timeout is this + 1 s
    const pool = createPgPool({ url: server.url, schema: "identity", applicationName: "identity-hang-test", statementTimeoutMs });
    const store = new PgIdentityStore(identityDb(pool));
    const key = { kind: "email" as const, hash: randomBytes(32) };
    try {
      await runMigrations(pool, { schema: "identity", migrationsFolder: MIGRATIONS_FOLDER });
      let started = 0;
      const outcome = await store
        .transaction(async (tx) => {
          await tx.survivorsOf([key]);
          server.freeze();
          started = Date.now();
          await tx.survivorsOf([key]);
        })
        .then(() => undefined, (err: unknown) => err)
        .finally(() => server.thaw());
      const took = Date.now() - started;
      expect(outcome).toBeInstanceOf(DependencyUnavailableError);
      expect(took, `failed after ${took} ms`).toBeLessThan(statementTimeoutMs + 1_000 + 1_000);
      expect((await store.transaction((tx) => tx.survivorsOf([key]))).size).toBe(0);
    } finally {
      server.thaw();
      await pool.end();
    }
  }, 60_000);
});
