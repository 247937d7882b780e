/**
 * The practice change feed over the legacy database (read-only): what change detection reads.
 * Practices come from the read API's own union statement and mapper, so a detected change is a
 * change of the API response. With mysql-practice-source.ts and to-practice.ts the only modules
 * that know legacy names.
 */
import type { LegacyDb } from "@svc/db";
import {
  EVERY_INDEX,
  forceIndex,
  IndexHints,
  PRACTICE_INDEXES,
  type IndexHint,
} from "@svc/legacy/reads";
import type {
  PracticeChangeFeed,
  PracticeFeedEntry,
  PracticeModification,
} from "../domain/ports.ts";
import { pageSql, type Scope } from "./mysql-practice-source.ts";
import { toPractice, type PracticeRow } from "./to-practice.ts";

interface Statement {
  text: string;
  params: unknown[];
}

/** Every legacy index the feed forces; a test checks each exists in the legacy schema. */
export const FEED_INDEXES = [PRACTICE_INDEXES.practiceModified, PRACTICE_INDEXES.crmModified];

/**
 * Both tables stamp their rows (`gewijzigd_op`, NOT NULL): a primary row names its practice by
 * `crm_ref`, a CRM row by `crm_id` (a primary practice's CRM row, or a secondary practice). Each
 * branch is cut at `limit` in its own range before the union is ordered. Ids compare with the
 * legacy PAD SPACE collation, so two ids differing only in trailing spaces stamped in the same
 * second may share a page boundary badly; the sweep still reads both.
 */
export function modificationsSql(
  sinceLocal: string,
  after: PracticeModification | null,
  limit: number,
  hints: IndexHint = EVERY_INDEX,
): Statement {
  const bound = (time: string, id: string) =>
    after ? `${time} >= ? AND (${time} > ? OR ${id} > ?)` : `${time} >= ?`;
  const values = after
    ? [after.modifiedLocal, after.modifiedLocal, after.practiceId]
    : [sinceLocal];
  return {
    text: `SELECT u.modified_local, u.practice_id FROM (
  (SELECT p.gewijzigd_op AS modified_local, p.crm_ref AS practice_id FROM tbl_praktijk p${forceIndex(PRACTICE_INDEXES.practiceModified, hints)}
    WHERE ${bound("p.gewijzigd_op", "p.crm_ref")} ORDER BY p.gewijzigd_op, p.crm_ref LIMIT ?)
  UNION ALL
  (SELECT c.gewijzigd_op, c.crm_id FROM crm_bedrijf c${forceIndex(PRACTICE_INDEXES.crmModified, hints)}
    WHERE ${bound("c.gewijzigd_op", "c.crm_id")} ORDER BY c.gewijzigd_op, c.crm_id LIMIT ?)
) u ORDER BY u.modified_local, u.practice_id LIMIT ?`,
    params: [...values, limit, ...values, limit, limit],
  };
}

export class MysqlPracticeFeed implements PracticeChangeFeed {
  readonly #db: LegacyDb;
  readonly #hints: IndexHints;

  /** The indexes it forces are looked up on its first read (IndexHints). */
  constructor(db: LegacyDb) {
    this.#db = db;
    this.#hints = new IndexHints((sql) => db.query(sql), ["tbl_praktijk", "crm_bedrijf"]);
  }

  async modifications(
    sinceLocal: string,
    after: PracticeModification | null,
    limit: number,
  ): Promise<PracticeModification[]> {
    const rows = await this.#hints.run((hints) => {
      const q = modificationsSql(sinceLocal, after, limit, hints);
      return this.#db.query<{ modified_local: string; practice_id: string }>(q.text, q.params);
    });
    return rows.map((r) => ({ practiceId: r.practice_id, modifiedLocal: r.modified_local }));
  }

  async live(afterId: string | null, limit: number, today: string): Promise<PracticeFeedEntry[]> {
    // `>=` and one extra row, then the previous page's last id dropped: `>` would also skip an id
    // that differs from it only by trailing spaces (equal under the legacy collation).
    const rows = await this.#read(afterId === null ? {} : { from: afterId }, limit + 1, today);
    return rows.filter((e) => e.practice.practice_id !== afterId).slice(0, limit);
  }

  async byIds(ids: readonly string[], today: string): Promise<PracticeFeedEntry[]> {
    if (ids.length === 0) return [];
    const wanted = new Set(ids);
    // Room for ids that match only by trailing spaces; those are then dropped.
    const rows = await this.#read({ ids }, 2 * ids.length, today);
    return rows.filter((e) => wanted.has(e.practice.practice_id));
  }

  async #read(scope: Scope, limit: number, today: string): Promise<PracticeFeedEntry[]> {
    const q = pageSql({}, today, { limit, offset: 0 }, scope);
    const rows = await this.#db.query<PracticeRow>(q.text, q.params);
    return rows.map((row) => ({
      practice: toPractice(row, today),
      periodDecidesActive: row.bron === "secondary",
    }));
  }
}
