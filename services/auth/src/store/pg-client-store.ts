import { and, asc, eq, isNotNull, or, sql } from "drizzle-orm";
import type pg from "pg";
import { createDrizzle, guardPg } from "@svc/db";
import { clients, type ClientRow } from "./schema.ts";
import type { ClientRecord, NewClient } from "../domain/clients/client.ts";
import type { ClientStore } from "../domain/ports.ts";

function toClient(row: ClientRow): ClientRecord {
  return {
    id: row.id,
    name: row.name,
    secretHash: row.secretHash,
    scopes: row.scopes,
    status: row.status,
    isCrmMirror: row.isCrmMirror,
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
    rotatedAt: row.rotatedAt,
    revokedAt: row.revokedAt,
  };
}

/** ClientStore on the auth schema; connection failures become 503 (guardPg). */
export class PgClientStore implements ClientStore {
  readonly #db;
  readonly #findById;

  constructor(pool: pg.Pool) {
    this.#db = createDrizzle(pool, { clients });
    // The token endpoint's one query: prepared once per connection.
    this.#findById = this.#db
      .select()
      .from(clients)
      .where(eq(clients.id, sql.placeholder("id")))
      .limit(1)
      .prepare("auth_find_client");
  }

  async find(id: string): Promise<ClientRecord | undefined> {
    const rows = await guardPg(() => this.#findById.execute({ id }));
    return rows[0] ? toClient(rows[0]) : undefined;
  }

  async insert(client: NewClient): Promise<ClientRecord> {
    const rows = await guardPg(() =>
      this.#db
        .insert(clients)
        .values({ ...client, scopes: [...client.scopes] })
        .returning(),
    );
    return toClient(rows[0] as ClientRow);
  }

  async list(): Promise<ClientRecord[]> {
    const rows = await guardPg(() =>
      this.#db.select().from(clients).orderBy(asc(clients.createdAt), asc(clients.id)),
    );
    return rows.map(toClient);
  }

  async replaceSecret(id: string, secretHash: string, at: Date): Promise<ClientRecord | undefined> {
    const rows = await guardPg(() =>
      this.#db
        .update(clients)
        .set({ secretHash, rotatedAt: at })
        .where(and(eq(clients.id, id), eq(clients.status, "active")))
        .returning(),
    );
    return rows[0] ? toClient(rows[0]) : undefined;
  }

  async revoke(id: string, at: Date): Promise<ClientRecord | undefined> {
    const rows = await guardPg(() =>
      this.#db
        .update(clients)
        .set({
          status: "revoked",
          revokedAt: sql`COALESCE(${clients.revokedAt}, ${at.toISOString()}::timestamptz)`,
        })
        .where(eq(clients.id, id))
        .returning(),
    );
    return rows[0] ? toClient(rows[0]) : undefined;
  }

  async setExpiry(id: string, at: Date): Promise<ClientRecord | undefined> {
    const rows = await guardPg(() =>
      this.#db.update(clients).set({ expiresAt: at }).where(eq(clients.id, id)).returning(),
    );
    return rows[0] ? toClient(rows[0]) : undefined;
  }

  async listRevokedOrExpiring(): Promise<ClientRecord[]> {
    const rows = await guardPg(() =>
      this.#db
        .select()
        .from(clients)
        .where(or(eq(clients.status, "revoked"), isNotNull(clients.expiresAt))),
    );
    return rows.map(toClient);
  }
}
