import { randomBytes } from "node:crypto";
import { createConnection } from "mysql2/promise";
import type { Connection } from "mysql2/promise";
import type { LegacyDb } from "@svc/db";
import type {
  ChangeRecord,
  ChangeSource,
  ChangeStamp,
  PassContext,
  SourceDigest,
  SweepDigests,
} from "../../src/index.ts";

/**
 * A change source over a MariaDB vacancy table joined to a practice table, shaped like the
 * legacy one: wall-clock `modified` (may be NULL), a soft-delete flag, a display date that makes
 * `published` change with the calendar. Reads through the read-only legacy pool.
 */
type TestVacancy = {
  uuid: string;
  title: string | null;
  practice: { name: string | null };
  visible: boolean;
  published: boolean;
  display_date: string | null;
};

type Row = {
  digest?: Buffer;
  id: string;
  title: string | null;
  visible: number;
  display_date: string | null;
  deleted: number;
  modified: string | null;
  practice_name: string | null;
};

export class TestVacancySource implements ChangeSource<TestVacancy> {
  readonly name: string;
  readonly entityType = "vacancy" as const;
  readonly events = {
    created: "vacancy.created",
    updated: "vacancy.updated",
    deleted: "vacancy.deleted",
  } as const;
  readonly #db: LegacyDb;
  readonly #select: string;
  readonly #stamps: string;
  readonly #pageSize: number;
  /** Ids read in full by byIds, in call order (what quick passes fetch). */
  readonly fetched: string[][] = [];

  readonly #from: string;

  /**
   * `digests`: the source computes a digest of every mapped input in SQL, returns it with every
   * record and offers `digests` (what a sweep by digest reads).
   */
  constructor(
    db: LegacyDb,
    tables: { vacancy: string; practice: string },
    options: { pageSize?: number; name?: string; digests?: boolean } = {},
  ) {
    this.#db = db;
    this.#pageSize = options.pageSize ?? 500;
    this.name = options.name ?? "vacancies";
    this.#from = `FROM ${tables.vacancy} v LEFT JOIN ${tables.practice} p ON p.id = v.practice_id`;
    this.#select = `SELECT ${options.digests ? `${DIGEST} AS digest, ` : ""}v.id, v.title, v.visible, v.display_date, v.deleted, v.modified, p.name AS practice_name
      ${this.#from}`;
    this.#stamps = `SELECT id, modified FROM ${tables.vacancy}`;
    if (options.digests) this.digests = { version: "test 1", sweep: () => this.#digests() };
  }

  digests?: SweepDigests;

  /** Ids of every page of digests read, in call order. */
  readonly digestPages: string[][] = [];

  async *#digests(): AsyncIterable<SourceDigest[]> {
    for (let after = ""; ;) {
      const rows = await this.#db.query<{ id: string; digest: Buffer }>(
        `SELECT v.id, ${DIGEST} AS digest ${this.#from} WHERE v.deleted = 0 AND v.id > ? ORDER BY v.id LIMIT ?`,
        [after, this.#pageSize],
      );
      this.digestPages.push(rows.map((r) => r.id));
      if (rows.length > 0) yield rows;
      if (rows.length < this.#pageSize) return;
      after = (rows[rows.length - 1] as { id: string }).id;
    }
  }

  async *stampsSince(
    cursor: { modifiedAfterLocal: string },
    _ctx: PassContext,
  ): AsyncIterable<ChangeStamp[]> {
    for (let after: { modified: string; id: string } | null = null; ;) {
      const rows: Array<{ id: string; modified: string }> = await this.#db.query(
        after
          ? `${this.#stamps} WHERE modified > ? OR (modified = ? AND id > ?) ORDER BY modified, id LIMIT ?`
          : `${this.#stamps} WHERE modified >= ? ORDER BY modified, id LIMIT ?`,
        after
          ? [after.modified, after.modified, after.id, this.#pageSize]
          : [cursor.modifiedAfterLocal, this.#pageSize],
      );
      if (rows.length > 0) yield rows.map((r) => ({ id: r.id, modifiedLocal: r.modified }));
      if (rows.length < this.#pageSize) return;
      after = rows[rows.length - 1] as { modified: string; id: string };
    }
  }

  async *changedSince(
    cursor: { modifiedAfterLocal: string },
    ctx: PassContext,
  ): AsyncIterable<ChangeRecord<TestVacancy>[]> {
    // Keyset over (modified, id): stable pages while rows keep changing.
    let rows = await this.#db.query<Row>(
      `${this.#select} WHERE v.modified >= ? ORDER BY v.modified, v.id LIMIT ?`,
      [cursor.modifiedAfterLocal, this.#pageSize],
    );
    while (rows.length > 0) {
      yield rows.map((r) => toRecord(r, ctx.today));
      const last = rows[rows.length - 1] as Row;
      if (rows.length < this.#pageSize) return;
      rows = await this.#db.query<Row>(
        `${this.#select} WHERE (v.modified > ? OR (v.modified = ? AND v.id > ?)) ORDER BY v.modified, v.id LIMIT ?`,
        [last.modified, last.modified, last.id, this.#pageSize],
      );
    }
  }

  async *sweep(ctx: PassContext): AsyncIterable<ChangeRecord<TestVacancy>[]> {
    for (let after = ""; ;) {
      const rows = await this.#db.query<Row>(
        `${this.#select} WHERE v.deleted = 0 AND v.id > ? ORDER BY v.id LIMIT ?`,
        [after, this.#pageSize],
      );
      if (rows.length > 0) yield rows.map((r) => toRecord(r, ctx.today));
      if (rows.length < this.#pageSize) return;
      after = (rows[rows.length - 1] as Row).id;
    }
  }

  async byIds(ids: string[], ctx: PassContext): Promise<ChangeRecord<TestVacancy>[]> {
    if (ids.length === 0) return [];
    this.fetched.push([...ids]);
    const rows = await this.#db.query<Row>(`${this.#select} WHERE v.deleted = 0 AND v.id IN (?)`, [
      ids,
    ]);
    return rows.map((r) => toRecord(r, ctx.today));
  }
}

// Every input of toRecord but `today` (the recheck date covers the calendar); not internal_note
// or modified, which the canonical form does not show.
const DIGEST =
  "UNHEX(MD5(CONCAT_WS(',', QUOTE(v.title), v.visible, QUOTE(v.display_date), QUOTE(p.name))))";

function toRecord(r: Row, today: string): ChangeRecord<TestVacancy> {
  if (r.deleted) return { id: r.id, canonical: null, modifiedLocal: r.modified };
  const digest = r.digest === undefined ? {} : { digest: r.digest };
  const visible = r.visible === 1;
  const scheduled = r.display_date !== null && r.display_date > today;
  return {
    id: r.id,
    canonical: {
      uuid: r.id,
      title: r.title,
      practice: { name: r.practice_name },
      visible,
      published: visible && !scheduled,
      display_date: r.display_date,
    },
    recheckOn: visible && scheduled ? r.display_date : null,
    modifiedLocal: r.modified,
    ...digest,
  };
}

/** Read-write access for the test itself (the detector only ever reads). */
export type LegacyTables = { vacancy: string; practice: string; writer: Connection };

export async function createLegacyTables(url: string): Promise<LegacyTables> {
  const prefix = `t${randomBytes(3).toString("hex")}`;
  const writer = await createConnection({ uri: url, dateStrings: true });
  const tables = { vacancy: `${prefix}_vacancy`, practice: `${prefix}_practice`, writer };
  await writer.query(
    `CREATE TABLE ${tables.practice} (id INT PRIMARY KEY, name VARCHAR(100) NOT NULL, modified DATETIME NULL)`,
  );
  await writer.query(`CREATE TABLE ${tables.vacancy} (
    id VARCHAR(36) PRIMARY KEY, title VARCHAR(200) NULL, internal_note VARCHAR(200) NULL, practice_id INT NULL,
    visible TINYINT NOT NULL DEFAULT 1, display_date DATE NULL, deleted TINYINT NOT NULL DEFAULT 0, modified DATETIME NULL,
    KEY idx_modified (modified))`);
  return tables;
}
