import type pg from "pg";
import { asc, count, eq, getTableColumns, inArray, sql, type SQL } from "drizzle-orm";
import { createDrizzle, guardPg } from "@svc/db";
import * as schema from "./schema.ts";
import { crmAccounts } from "./schema.ts";
import {
  isoFromMicros,
  type AccountWrite,
  type CrmAccount,
  type MirroredAccount,
  type MirrorPosition,
  type StoredVersion,
  type WriteResult,
} from "../domain/crm-mirror/account.ts";
import { decideBatch } from "../domain/crm-mirror/decide.ts";
import type { CrmMirrorStore } from "../domain/ports.ts";

type Row = typeof crmAccounts.$inferSelect;
type StoredRow = Omit<Row, "modifiedOn" | "receivedAt"> & { modifiedOnUs: string };

function accountOf(r: StoredRow): CrmAccount | null {
  if (r.deleted) return null;
  return {
    name: r.name,
    alias: r.alias,
    organisation_type: r.organisationType,
    language: r.language,
    identifiers: { vat: r.vat },
    address: {
      street: r.street,
      postal_code: r.postalCode,
      city: r.city,
      province: r.province,
      country: r.country,
    },
    contact: { email: r.email, phone: r.phone },
    period: { start_date: r.periodStart, stop_date: r.periodStop },
  };
}

function mirroredOf(r: StoredRow): MirroredAccount {
  return {
    crmId: r.crmId,
    modifiedOn: isoFromMicros(Number(r.modifiedOnUs)),
    deleted: r.deleted,
    account: accountOf(r),
  };
}

function rowOf(
  crmId: string,
  version: StoredVersion,
  receivedAt: string,
): typeof crmAccounts.$inferInsert {
  const a = version.account;
  return {
    crmId,
    name: a?.name ?? null,
    alias: a?.alias ?? null,
    organisationType: a?.organisation_type ?? null,
    language: a?.language ?? null,
    vat: a?.identifiers.vat ?? null,
    street: a?.address.street ?? null,
    postalCode: a?.address.postal_code ?? null,
    city: a?.address.city ?? null,
    province: a?.address.province ?? null,
    country: a?.address.country ?? null,
    email: a?.contact.email ?? null,
    phone: a?.contact.phone ?? null,
    periodStart: a?.period.start_date ?? null,
    periodStop: a?.period.stop_date ?? null,
    // A tombstone keeps no account data, only the version that deleted it.
    modifiedOn: isoFromMicros(version.modifiedOnUs),
    deleted: a === null,
    receivedAt,
  };
}

const {
  modifiedOn: _modifiedOn,
  receivedAt: _receivedAt,
  ...plainColumns
} = getTableColumns(crmAccounts);
const storedColumns = {
  ...plainColumns,
  // Microseconds, exactly as stored: the decision compares versions at the database's precision.
  modifiedOnUs: sql<string>`(extract(epoch from ${crmAccounts.modifiedOn}) * 1000000)::bigint`,
};

/** On conflict, the decided final version replaces every column of the stored one. */
const replaceAll: Record<string, SQL> = Object.fromEntries(
  Object.entries(getTableColumns(crmAccounts))
    .filter(([key]) => key !== "crmId")
    .map(([key, column]) => [key, sql.raw(`excluded."${column.name}"`)]),
);

/** The CRM mirror in this service's PostgreSQL schema (`practices.crm_accounts`). */
export class PgCrmMirrorStore implements CrmMirrorStore {
  readonly #db;
  readonly #now: () => number;

  constructor(pool: pg.Pool, options: { now: () => number }) {
    this.#db = createDrizzle(pool, schema);
    this.#now = options.now;
  }

  apply(writes: ReadonlyArray<AccountWrite>): Promise<WriteResult[]> {
    const ids = [...new Set(writes.map((w) => w.crmId))];
    if (ids.length === 0) return Promise.resolve([]);
    return guardPg(() =>
      this.#db.transaction(async (tx) => {
        // Writers of the same ids take turns (ids not stored yet have no row to lock); hashes are
        // locked in ascending order so two overlapping batches cannot deadlock.
        await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('practices.crm_accounts'), h)
          FROM (SELECT DISTINCT hashtext(id) AS h FROM unnest(${sql.param(ids)}::text[]) AS id ORDER BY h) AS ids`);
        const rows: StoredRow[] = await tx
          .select(storedColumns)
          .from(crmAccounts)
          .where(inArray(crmAccounts.crmId, ids));
        const stored = new Map(
          rows.map((r) => [
            r.crmId,
            { modifiedOnUs: Number(r.modifiedOnUs), account: accountOf(r) },
          ]),
        );
        const { results, changed } = decideBatch(stored, writes);
        if (changed.size > 0) {
          const receivedAt = new Date(this.#now()).toISOString();
          const values = [...changed].map(([id, version]) => rowOf(id, version, receivedAt));
          await tx
            .insert(crmAccounts)
            .values(values)
            .onConflictDoUpdate({ target: crmAccounts.crmId, set: replaceAll });
        }
        return results;
      }),
    );
  }

  get(crmId: string): Promise<MirroredAccount | null> {
    return guardPg(async () => {
      const [row] = await this.#db
        .select(storedColumns)
        .from(crmAccounts)
        .where(eq(crmAccounts.crmId, crmId));
      return row ? mirroredOf(row) : null;
    });
  }

  page(after: MirrorPosition | null, limit: number): Promise<MirroredAccount[]> {
    // The position's time is the stored microsecond text, so the comparison is exact.
    const where = after
      ? sql`(${crmAccounts.modifiedOn}, ${crmAccounts.crmId}) > (${after.modifiedOn}::timestamptz, ${after.crmId})`
      : undefined;
    return guardPg(async () => {
      const rows: StoredRow[] = await this.#db
        .select(storedColumns)
        .from(crmAccounts)
        .where(where)
        .orderBy(asc(crmAccounts.modifiedOn), asc(crmAccounts.crmId))
        .limit(limit);
      return rows.map(mirroredOf);
    });
  }

  count(): Promise<number> {
    return guardPg(async () => {
      const [row] = await this.#db.select({ n: count() }).from(crmAccounts);
      return row?.n ?? 0;
    });
  }
}
