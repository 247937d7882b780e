/**
 * The vacancy change feed over the legacy `tbl_vacature` (read-only): what change detection reads.
 * Rows go through the same columns and mapper as the read API, so a detected change is a change
 * of the API response. With mysql-vacancy-source.ts and to-vacancy.ts the only modules that know
 * legacy names.
 */
import type { LegacyDb } from "@svc/db";
import {
  EVERY_INDEX,
  forceIndex,
  VACANCY_INDEXES,
  type IndexHint,
  type IndexHints,
} from "@svc/legacy/reads";
import type {
  AsOf,
  FeedPosition,
  VacancyChangeFeed,
  VacancyFeedDigest,
  VacancyFeedEntry,
  VacancyFeedStamp,
} from "../domain/ports.ts";
import { zonedIso, type LocalToIso } from "./local-time.ts";
import { COLUMNS, LABEL_JOINS, vacancyIndexHints, type Statement } from "./mysql-vacancy-source.ts";
import { toVacancy, VACANCY_MAPPING_VERSION, type VacancyRow } from "./to-vacancy.ts";

interface FeedRow extends VacancyRow {
  vacature_id: number;
  verwijderd: number;
  digest: Buffer;
}

/**
 * A row's source digest for change detection: MD5 over every column and joined label COLUMNS
 * reads, each QUOTE()d (NULL as the bare word NULL), so two different rows never give one input.
 * `today` is not in it: `gepubliceerd` comes from zichtbaar and publicatiedatum, which are, and
 * the date it flips on is the record's recheck date. Why: docs/decisions/change-detection-sweep.md.
 */
const MAPPED_COLUMNS = [...new Set(COLUMNS.match(/\b(?:v|prov|func)\.[a-z_]+/g))];
export const DIGEST = `UNHEX(MD5(CONCAT_WS(',', ${MAPPED_COLUMNS.map((c) => `QUOTE(${c})`).join(", ")})))`;

const FEED_COLUMNS = `${COLUMNS}, v.vacature_id, v.verwijderd, ${DIGEST} AS digest`;

/** Every legacy index the feed forces; a test checks each exists in the legacy schema. */
export const FEED_INDEXES = [VACANCY_INDEXES.updatedSince, VACANCY_INDEXES.primary];

/**
 * Modified at or after `sinceLocal`, soft-deleted rows included. idx_vac_gewijzigd carries the
 * primary key, so (gewijzigd_op, vacature_id) is its own order: the page's ids come from the
 * index alone, then only those (large) rows are read. Resuming after the last entry of the
 * previous page keeps pages stable while rows keep changing; NULL times never match (the sweep
 * covers them).
 */
export function modifiedSinceStatement(
  sinceLocal: string,
  after: FeedPosition | null,
  limit: number,
  asOf: AsOf,
  hints: IndexHint = EVERY_INDEX,
): Statement {
  const page = pageOfModified(sinceLocal, after, hints);
  return {
    sql: `SELECT ${FEED_COLUMNS}
FROM (SELECT d.vacature_id ${page.from} LIMIT ?) page
JOIN tbl_vacature v ON v.vacature_id = page.vacature_id
${LABEL_JOINS}
ORDER BY v.gewijzigd_op, v.vacature_id`,
    params: [asOf.today, ...page.bounds, limit],
  };
}

/** The index walk modifiedSinceStatement and stampsSinceStatement share, from FROM on. */
function pageOfModified(
  sinceLocal: string,
  after: FeedPosition | null,
  hints: IndexHint,
): { from: string; bounds: Array<string | number> } {
  const resume = after
    ? "d.gewijzigd_op >= ? AND (d.gewijzigd_op > ? OR d.vacature_id > ?)"
    : "d.gewijzigd_op >= ?";
  return {
    from: `FROM tbl_vacature d${forceIndex(VACANCY_INDEXES.updatedSince, hints)}
  WHERE ${resume} ORDER BY d.gewijzigd_op, d.vacature_id`,
    bounds: after ? [after.modifiedLocal, after.modifiedLocal, after.rowKey] : [sinceLocal],
  };
}

/**
 * The stamps of modifiedSinceStatement's rows: the same index range, plus one primary-key lookup
 * per row for its uuid; no joins, none of the large columns.
 */
export function stampsSinceStatement(
  sinceLocal: string,
  after: FeedPosition | null,
  limit: number,
  hints: IndexHint = EVERY_INDEX,
): Statement {
  const page = pageOfModified(sinceLocal, after, hints);
  return {
    sql: `SELECT d.vacature_id, d.uuid, d.gewijzigd_op ${page.from} LIMIT ?`,
    params: [...page.bounds, limit],
  };
}

/** Live rows in primary-key order (the sweep): a range of the clustered index, no sort. */
export function liveStatement(
  afterRowKey: number | null,
  limit: number,
  asOf: AsOf,
  hints: IndexHint = EVERY_INDEX,
): Statement {
  const range = liveRange(afterRowKey, limit, hints);
  return { sql: `SELECT ${FEED_COLUMNS} ${range.sql}`, params: [asOf.today, ...range.params] };
}

/**
 * The sweep's digests: live rows' keys and digests in primary-key order. MariaDB still reads each
 * row (the digest covers its large columns), but only 16 bytes of it cross the wire.
 */
export function liveDigestsStatement(
  afterRowKey: number | null,
  limit: number,
  hints: IndexHint = EVERY_INDEX,
): Statement {
  const range = liveRange(afterRowKey, limit, hints);
  return {
    sql: `SELECT v.vacature_id, v.uuid, ${DIGEST} AS digest ${range.sql}`,
    params: range.params,
  };
}

/** The primary-key range liveStatement and liveDigestsStatement share, from FROM on. */
function liveRange(afterRowKey: number | null, limit: number, hints: IndexHint): Statement {
  const resume = afterRowKey === null ? "" : " AND v.vacature_id > ?";
  return {
    sql: `FROM tbl_vacature v${forceIndex(VACANCY_INDEXES.primary, hints)}
${LABEL_JOINS}
WHERE v.verwijderd = 0${resume} ORDER BY v.vacature_id LIMIT ?`,
    params: [...(afterRowKey === null ? [] : [afterRowKey]), limit],
  };
}

export function byUuidsStatement(uuids: readonly string[], asOf: AsOf): Statement {
  return {
    sql: `SELECT ${FEED_COLUMNS} FROM tbl_vacature v ${LABEL_JOINS} WHERE v.uuid IN (?) AND v.verwijderd = 0`,
    params: [asOf.today, [...uuids]],
  };
}

export class MysqlVacancyFeed implements VacancyChangeFeed {
  readonly #db: LegacyDb;
  readonly #toIso: LocalToIso;
  readonly #hints: IndexHints;
  readonly mappingVersion: string;

  /** `zone`: the zone the legacy DATETIME columns hold wall-clock time in. */
  constructor(db: LegacyDb, zone: string) {
    this.#db = db;
    this.#toIso = zonedIso(zone);
    this.#hints = vacancyIndexHints(db);
    this.mappingVersion = `toVacancy ${VACANCY_MAPPING_VERSION}, ${zone}`;
  }

  async modifiedSince(
    sinceLocal: string,
    after: FeedPosition | null,
    limit: number,
    asOf: AsOf,
  ): Promise<VacancyFeedEntry[]> {
    return this.#hints.run((hints) =>
      this.#read(modifiedSinceStatement(sinceLocal, after, limit, asOf, hints)),
    );
  }

  async stampsSince(
    sinceLocal: string,
    after: FeedPosition | null,
    limit: number,
  ): Promise<VacancyFeedStamp[]> {
    const rows = await this.#hints.run((hints) => {
      const s = stampsSinceStatement(sinceLocal, after, limit, hints);
      return this.#db.query<{ vacature_id: number; uuid: string; gewijzigd_op: string }>(
        s.sql,
        s.params,
      );
    });
    return rows.map((r) => ({
      uuid: r.uuid,
      rowKey: Number(r.vacature_id),
      modifiedLocal: r.gewijzigd_op,
    }));
  }

  async live(afterRowKey: number | null, limit: number, asOf: AsOf): Promise<VacancyFeedEntry[]> {
    return this.#hints.run((hints) => this.#read(liveStatement(afterRowKey, limit, asOf, hints)));
  }

  async liveDigests(afterRowKey: number | null, limit: number): Promise<VacancyFeedDigest[]> {
    const rows = await this.#hints.run((hints) => {
      const s = liveDigestsStatement(afterRowKey, limit, hints);
      return this.#db.query<{ vacature_id: number; uuid: string; digest: Buffer }>(s.sql, s.params);
    });
    return rows.map((r) => ({ uuid: r.uuid, rowKey: Number(r.vacature_id), digest: r.digest }));
  }

  async byUuids(uuids: readonly string[], asOf: AsOf): Promise<VacancyFeedEntry[]> {
    return uuids.length === 0 ? [] : this.#read(byUuidsStatement(uuids, asOf));
  }

  async #read(statement: Statement): Promise<VacancyFeedEntry[]> {
    const rows = await this.#db.query<FeedRow>(statement.sql, statement.params);
    return rows.map((row) => ({
      uuid: row.uuid,
      rowKey: Number(row.vacature_id),
      modifiedLocal: row.gewijzigd_op,
      vacancy: Number(row.verwijderd) === 0 ? toVacancy(row, this.#toIso) : null,
      digest: row.digest,
    }));
  }
}
