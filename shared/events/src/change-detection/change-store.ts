import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import { pgSchema } from "drizzle-orm/pg-core";
import type pg from "pg";
import type { Fence } from "@svc/leader";
import type { TraceContext } from "@svc/messaging";
import type { EventPayload } from "../event.ts";
import { enqueueEvents, outboxTable } from "../outbox.ts";
import type { OutboxTable } from "../outbox.ts";
import { checkedIdentifier, withTransaction } from "../pg-transaction.ts";
import type { SourceDigest } from "./change-source.ts";
import { planChanges } from "./plan.ts";
import type { Change, Observation, Plan, StateRow } from "./plan.ts";
import { changeCursorTable } from "./tables.ts";
import type { ChangeCursorTable } from "./tables.ts";

/** A position in the recheck order. */
export type RecheckKey = { recheckOn: string; id: string };

export type CursorRow = {
  modifiedAfterLocal: string;
  baselineAt: Date;
  sweptAt: Date | null;
  digestVersion: string | null;
};

export type ApplyOptions = {
  baseline: boolean;
  seenAt: Date;
  fence: Fence;
  /** `since`: when a pass last wrote this record's state (null: never seen). */
  toEvent: (id: string, change: Change, since: Date | null) => EventPayload;
  /** Runs the write transaction (there is something to write) in the pass's span. */
  traced?: (<T>(work: () => Promise<T>) => Promise<T>) | undefined;
  /** Read inside the write, so in the pass's span: the context stored with the events. */
  traceContext?: (() => TraceContext | undefined) | undefined;
};

/** The detector's own tables (state, cursor, outbox) in the service schema. */
export class ChangeStore {
  readonly #pool: pg.Pool;
  readonly #db: NodePgDatabase;
  readonly #cursor: ChangeCursorTable;
  readonly #outbox: OutboxTable;
  readonly #source: string;
  /** Quoted, qualified name of the state table, for the plain-SQL statements. */
  readonly #stateName: string;

  constructor(o: { pool: pg.Pool; schema: string; stateTable: string; sourceName: string }) {
    const schema = pgSchema(o.schema);
    this.#pool = o.pool;
    this.#db = drizzle(o.pool);
    this.#cursor = changeCursorTable(schema);
    this.#outbox = outboxTable(schema);
    this.#source = o.sourceName;
    this.#stateName = `"${o.schema}"."${checkedIdentifier(o.stateTable)}"`;
  }

  /**
   * Evaluates one batch and commits its state rows and its events in ONE transaction, so the
   * state never claims an emission the outbox does not hold (or the reverse). Unchanged records
   * cost one read and no transaction.
   */
  async apply(observed: Observation[], o: ApplyOptions): Promise<Plan["events"]> {
    if (observed.length === 0) return [];
    const unlocked = await this.#read(
      this.#pool,
      observed.map((x) => x.id),
      false,
    );
    const first = planChanges(observed, unlocked, o.baseline);
    if (first.writes.length === 0) return [];
    const touched = new Set(first.writes.map((w) => w.entityId));
    const traced = o.traced ?? (<T>(work: () => Promise<T>) => work());
    return traced(() => this.#commit(observed, touched, o));
  }

  async #commit(
    observed: Observation[],
    touched: Set<string>,
    o: ApplyOptions,
  ): Promise<Plan["events"]> {
    return withTransaction(this.#pool, async (client) => {
      // Planned again under row locks, against what is committed now: a detector that overlapped
      // with this one (a leadership hand-over) cannot make this batch report a change twice.
      const locked = await this.#read(client, [...touched], true);
      const plan = planChanges(
        observed.filter((x) => touched.has(x.id)),
        locked,
        o.baseline,
      );
      if (plan.writes.length > 0) await this.#write(client, plan.writes, o.seenAt);
      const db = drizzle(client);
      await enqueueEvents(
        db,
        this.#outbox,
        plan.events.map((e) => o.toEvent(e.id, e.change, locked.get(e.id)?.seenAt ?? null)),
        o.traceContext?.(),
      );
      await o.fence(db);
      return plan.events;
    });
  }

  // The two hot statements (every page of every pass) are plain SQL with one array parameter
  // per column: building a 1000-row IN list or VALUES list through drizzle costs more CPU than
  // the database work. Columns as in changeStateTable.
  async #read(
    db: pg.Pool | pg.PoolClient,
    ids: string[],
    forUpdate: boolean,
  ): Promise<Map<string, StateRow & { seenAt: Date }>> {
    const { rows } = await db.query<{
      entity_id: string;
      hash: Buffer;
      recheck_on: string | null;
      seen_at: Date;
      deleted: boolean;
      source_digest: Buffer | null;
    }>(
      `SELECT entity_id, hash, recheck_on::text AS recheck_on, seen_at, deleted, source_digest FROM ${this.#stateName}
       WHERE entity_id = ANY($1::text[])${forUpdate ? " FOR UPDATE" : ""}`,
      [ids],
    );
    return new Map(
      rows.map((r) => [
        r.entity_id,
        {
          entityId: r.entity_id,
          hash: r.hash,
          recheckOn: r.recheck_on,
          deleted: r.deleted,
          digest: r.source_digest,
          seenAt: r.seen_at,
        },
      ]),
    );
  }

  async #write(db: pg.PoolClient, writes: StateRow[], seenAt: Date): Promise<void> {
    await db.query(
      `INSERT INTO ${this.#stateName} (entity_id, hash, recheck_on, seen_at, deleted, source_digest)
       SELECT u.entity_id, u.hash, u.recheck_on, $5, u.deleted, u.source_digest FROM unnest($1::text[], $2::bytea[], $3::date[], $4::boolean[], $6::bytea[]) AS u(entity_id, hash, recheck_on, deleted, source_digest)
       ON CONFLICT (entity_id) DO UPDATE SET hash = excluded.hash, recheck_on = excluded.recheck_on, seen_at = excluded.seen_at, deleted = excluded.deleted, source_digest = excluded.source_digest`,
      [
        writes.map((w) => w.entityId),
        writes.map((w) => w.hash),
        writes.map((w) => w.recheckOn),
        writes.map((w) => w.deleted),
        seenAt,
        writes.map((w) => w.digest),
      ],
    );
  }

  /**
   * Of a sweep's digests, the ids to read in full: no state, a reported delete, another digest
   * than the one stored, or a recheck date that has come. One statement per page; the answer is
   * only the few that differ.
   */
  async staleDigests(digests: SourceDigest[], today: string): Promise<string[]> {
    if (digests.length === 0) return [];
    const { rows } = await this.#pool.query<{ id: string }>(
      `SELECT u.id FROM unnest($1::text[], $2::bytea[]) AS u(id, digest)
       LEFT JOIN ${this.#stateName} s ON s.entity_id = u.id
       WHERE s.source_digest IS DISTINCT FROM u.digest OR s.deleted OR s.recheck_on <= $3::date`,
      [digests.map((d) => d.id), digests.map((d) => d.digest), today],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Live records whose calendar date has come, after `after` in (recheck date, id) order. That
   * order walks the partial recheck index from its start and stops at today; ordering by id alone
   * lets the planner walk the primary key and filter every row when none is due.
   */
  async dueForRecheck(
    today: string,
    after: RecheckKey | null,
    limit: number,
  ): Promise<RecheckKey[]> {
    const { rows } = await this.#pool.query<RecheckKey>(
      `SELECT entity_id AS id, recheck_on::text AS "recheckOn" FROM ${this.#stateName}
       WHERE recheck_on <= $1::date AND NOT deleted AND (recheck_on, entity_id) > ($2::date, $3::text)
       ORDER BY recheck_on, entity_id LIMIT $4`,
      [today, after?.recheckOn ?? "-infinity", after?.id ?? "", limit],
    );
    return rows;
  }

  /**
   * Live records no pass has written since `at` (a sweep's delete candidates), after `after` in id
   * order: a page at a time, so a sweep never holds the whole table's ids from this side.
   */
  async liveIdsSeenBefore(at: Date, after: string | null, limit: number): Promise<string[]> {
    const { rows } = await this.#pool.query<{ entity_id: string }>(
      `SELECT entity_id FROM ${this.#stateName}
       WHERE NOT deleted AND seen_at < $1${after === null ? "" : " AND entity_id > $3"}
       ORDER BY entity_id LIMIT $2`,
      after === null ? [at, limit] : [at, limit, after],
    );
    return rows.map((r) => r.entity_id);
  }

  async readCursor(): Promise<CursorRow | null> {
    const c = this.#cursor;
    const rows = await this.#db
      .select({
        modifiedAfterLocal: c.modifiedAfterLocal,
        baselineAt: c.baselineAt,
        sweptAt: c.sweptAt,
        digestVersion: c.digestVersion,
      })
      .from(c)
      .where(eq(c.source, this.#source));
    return rows[0] ?? null;
  }

  async saveBaseline(
    modifiedAfterLocal: string,
    at: Date,
    digestVersion: string | null,
  ): Promise<void> {
    const row = {
      source: this.#source,
      modifiedAfterLocal,
      baselineAt: at,
      sweptAt: at,
      digestVersion,
      updatedAt: at,
    };
    await this.#db
      .insert(this.#cursor)
      .values(row)
      .onConflictDoUpdate({ target: this.#cursor.source, set: row });
  }

  async updateCursor(
    changes: { modifiedAfterLocal?: string; sweptAt?: Date; digestVersion?: string | null },
    at: Date,
  ): Promise<void> {
    await this.#db
      .update(this.#cursor)
      .set({ ...changes, updatedAt: at })
      .where(eq(this.#cursor.source, this.#source));
  }
}
