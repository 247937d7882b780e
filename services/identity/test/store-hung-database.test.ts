import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgPool, runMigrations } from "@svc/db";
import { DependencyUnavailableError } from "@svc/errors";
import { startPrivatePostgres, type PrivatePostgres } from "@svc/testing";
import { MIGRATIONS_FOLDER } from "../src/store/migrations.ts";
import { idempotencyKeys } from "../src/store/schema.ts";
import { PgIdempotencyStore } from "../src/store/pg-idempotency-store.ts";
import type { ReserveInput } from "../src/domain/ports.ts";
import { identityDb } from "../src/store/db.ts";
import { PgIdentityStore } from "../src/store/pg-identity-store.ts";

// PostgreSQL that hangs (SIGSTOP: connections open, nothing answered) in the middle of an
// application's transaction. The statement that hangs fails after the pool's query timeout; the
// transaction must then fail at once, not send a ROLLBACK that waits out a second timeout.
let server: PrivatePostgres;
beforeAll(async () => void (server = await startPrivatePostgres()), 60_000);
afterAll(async () => server?.cleanup());

describe("the identity store when PostgreSQL hangs mid-transaction", () => {
  it("fails the transaction with 503 within one query timeout, and works again once the server answers", async () => {
    const statementTimeoutMs = 1_000; // the pool's client-side query timeout is this + 1 s
    const pool = createPgPool({
      url: server.url,
      schema: "identity",
      applicationName: "identity-hang-test",
      statementTimeoutMs,
    });
    const store = new PgIdentityStore(identityDb(pool));
    const candidate = randomUUID();
    try {
      await runMigrations(pool, { schema: "identity", migrationsFolder: MIGRATIONS_FOLDER });
      let started = 0;
      const outcome = await store
        .transaction(async (tx) => {
          await tx.survivorOfCandidate(candidate);
          server.freeze();
          started = Date.now();
          await tx.survivorOfCandidate(candidate);
        })
        .then(
          () => undefined,
          (err: unknown) => err,
        )
        .finally(() => server.thaw());
      const took = Date.now() - started;
      expect(outcome).toBeInstanceOf(DependencyUnavailableError);
      expect(took, `failed after ${took} ms`).toBeLessThan(statementTimeoutMs + 1_000 + 1_000);
      expect(await store.transaction((tx) => tx.survivorOfCandidate(candidate))).toBeUndefined();
    } finally {
      server.thaw();
      await pool.end();
    }
  }, 60_000);
});

/** A reservation of one key by one request, made at `now` with the middleware's 60 s lease. */
function reservation(keyHash: Buffer, requestHash: Buffer, now = new Date()): ReserveInput {
  return {
    clientId: "hang-client",
    keyHash,
    requestHash,
    now,
    expiresAt: new Date(now.getTime() + 86_400_000),
    lockedUntil: new Date(now.getTime() + 60_000),
  };
}

// A statement sent to a server that hangs fails after the query timeout, yet the server runs it
// once it answers again. For a key's reservation that must not hold the key: the client got its
// 503, and a late INSERT would keep every retry waiting for a 409 for a whole lease.
describe("Idempotency-Key reservations when PostgreSQL hangs", () => {
  it("a reservation that failed on a hung server does not hold the key once the server answers again", async () => {
    const applicationName = "identity-key-hang-test";
    const pool = createPgPool({
      url: server.url,
      schema: "identity",
      applicationName,
      statementTimeoutMs: 1_000,
    });
    const observer = createPgPool({
      url: server.url,
      schema: "identity",
      applicationName: "identity-key-hang-observer",
      max: 1,
    });
    const store = new PgIdempotencyStore(identityDb(pool), idempotencyKeys);
    const keyHash = randomBytes(32);
    const requestHash = randomBytes(32);
    try {
      await runMigrations(pool, { schema: "identity", migrationsFolder: MIGRATIONS_FOLDER });
      // An open idle connection, so the reservation reaches the server (a new one would fail to
      // connect).
      await pool.query("SELECT 1");
      server.freeze();
      const failed = await store
        .reserve(reservation(keyHash, requestHash))
        .then(
          () => undefined,
          (err: unknown) => err,
        )
        .finally(() => server.thaw());
      expect(failed).toBeInstanceOf(DependencyUnavailableError);
      // The abandoned session's statements run (or are rolled back) before it ends: wait for that.
      const sessions = async () =>
        (
          await observer.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1",
            [applicationName],
          )
        ).rows[0]!.n;
      for (const deadline = Date.now() + 10_000; (await sessions()) > 0 && Date.now() < deadline;)
        await new Promise((r) => setTimeout(r, 50));
      expect(await sessions()).toBe(0);
      // The client was told 503 (its key freed): the retry of the same request runs at once.
      expect((await store.reserve(reservation(keyHash, requestHash))).kind).toBe("reserved");
    } finally {
      server.thaw();
      await pool.end();
      await observer.end();
    }
  }, 60_000);
});
