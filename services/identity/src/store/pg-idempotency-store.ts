import type pg from "pg";
import { and, eq, lte, or } from "drizzle-orm";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { withTransaction } from "@svc/events";
import { guardStore } from "./guard-store.ts";
import type { IdempotencyKeysTable } from "./idempotency-table.ts";
import type {
  IdempotencyRecordId,
  IdempotencyStore,
  Reservation,
  ReserveInput,
  StoredResponse,
} from "../domain/ports.ts";

type KeysDb = NodePgDatabase<Record<string, unknown>>;

/**
 * Idempotency records in PostgreSQL. The key row is inserted first, in its own transaction, under
 * the (client_id, key_hash) primary key: of concurrent requests exactly one inserts it and runs;
 * the others see the row and wait for its response, holding no connection while they wait.
 *
 * A reservation commits only after its request has seen the row written. A statement sent to a
 * server that hangs fails here after the pool's query timeout (the request answers 503, its key
 * free), yet the server still runs it once it answers again: an INSERT committed on its own would
 * then hold the key for a whole lease with no request behind it, and every retry would wait for a
 * 409 until the lease ran out. In a transaction, the failed client's connection is closed instead
 * of committed (withTransaction), so the server rolls that late statement back. Only a COMMIT
 * already sent when the server stops answering can still land late; that key is held until its
 * lease ends, as after a crash (README "Idempotency-Key").
 */
export class PgIdempotencyStore implements IdempotencyStore {
  readonly #db: KeysDb & { $client: pg.Pool };
  readonly #table: IdempotencyKeysTable;

  constructor(db: KeysDb & { $client: pg.Pool }, table: IdempotencyKeysTable) {
    this.#db = db;
    this.#table = table;
  }

  #idOf(id: IdempotencyRecordId) {
    return and(eq(this.#table.clientId, id.clientId), eq(this.#table.keyHash, id.keyHash));
  }

  reserve(input: ReserveInput): Promise<Reservation> {
    return guardStore(() =>
      withTransaction(this.#db.$client, (client) => this.#reserveWith(drizzle(client), input)),
    );
  }

  async #reserveWith(db: KeysDb, input: ReserveInput): Promise<Reservation> {
    // A record released between our insert attempt and our read makes one more round necessary.
    for (let round = 0; round < 5; round++) {
      const outcome = await this.#attempt(db, input);
      if (outcome) return outcome;
    }
    throw new Error("idempotency record kept changing under a reservation attempt");
  }

  async #attempt(db: KeysDb, input: ReserveInput): Promise<Reservation | undefined> {
    const fresh = {
      clientId: input.clientId,
      keyHash: input.keyHash,
      requestHash: input.requestHash,
      state: "in_progress" as const,
      responseStatus: null,
      responseBody: null,
      createdAt: input.now,
      expiresAt: input.expiresAt,
      lockedUntil: input.lockedUntil,
    };
    const inserted = await db
      .insert(this.#table)
      .values(fresh)
      .onConflictDoNothing()
      .returning({ state: this.#table.state });
    if (inserted.length > 0) return { kind: "reserved" };
    const expired = lte(this.#table.expiresAt, input.now);
    const abandoned = and(
      eq(this.#table.state, "in_progress"),
      eq(this.#table.requestHash, input.requestHash),
      lte(this.#table.lockedUntil, input.now),
    );
    const takenOver = await db
      .update(this.#table)
      .set(fresh)
      .where(and(this.#idOf(input), or(expired, abandoned)))
      .returning({ state: this.#table.state });
    if (takenOver.length > 0) return { kind: "reserved" };
    const [row] = await db.select().from(this.#table).where(this.#idOf(input));
    if (!row) return undefined;
    if (row.state === "completed" && row.responseStatus !== null && row.responseBody !== null) {
      return {
        kind: "completed",
        requestHash: row.requestHash,
        response: { status: row.responseStatus, body: row.responseBody },
      };
    }
    return { kind: "in_progress", requestHash: row.requestHash };
  }

  complete(id: IdempotencyRecordId, response: StoredResponse): Promise<void> {
    return guardStore(async () => {
      await this.#db
        .update(this.#table)
        .set({ state: "completed", responseStatus: response.status, responseBody: response.body })
        .where(and(this.#idOf(id), eq(this.#table.state, "in_progress")));
    });
  }

  release(id: IdempotencyRecordId): Promise<void> {
    return guardStore(async () => {
      await this.#db
        .delete(this.#table)
        .where(and(this.#idOf(id), eq(this.#table.state, "in_progress")));
    });
  }

  pruneExpired(now: Date): Promise<number> {
    return guardStore(async () => {
      const result = await this.#db.delete(this.#table).where(lte(this.#table.expiresAt, now));
      return result.rowCount ?? 0;
    });
  }
}
