/**
 * Vacancies from the legacy primary database (MySQL/MariaDB, read-only). Every filter is a SQL
 * predicate answered by an index of `tbl_vacature`; nothing is filtered or paged in memory. With
 * to-vacancy.ts the only module that knows legacy table and column names; the index names come
 * from @svc/legacy/reads, and each is forced only where the database has it (IndexHints).
 *
 * The rows are large (five MEDIUMTEXT columns), so reading one is the cost to avoid: a list finds
 * its ids and its total on covering secondary indexes alone, and reads only the page's rows.
 * Why the plans below: docs/decisions/list-pages.md.
 */
import { createLegacyDb, type LegacyDb, type LegacyDbOptions } from "@svc/db";
import {
  EVERY_INDEX,
  forceIndex,
  IndexHints,
  VACANCY_INDEXES,
  type IndexHint,
} from "@svc/legacy/reads";
import { PageMarks, type PageMarkOptions } from "@svc/paging";
import type { Vacancy } from "../domain/vacancy-catalogue.ts";
import {
  listKey,
  type AsOf,
  type PageRequest,
  type ReferenceLists,
  type VacancyFilter,
  type VacancyLink,
  type VacancySource,
} from "../domain/ports.ts";
import { zonedIso, type LocalToIso } from "./local-time.ts";
import {
  statusCodeOf,
  toReferenceEntry,
  toVacancy,
  type ReferenceRow,
  type VacancyRow,
} from "./to-vacancy.ts";

/** A statement and its positional parameters, in the order the `?` appear in the text. */
export interface Statement {
  sql: string;
  params: unknown[];
}

// The contract's `published`: visible AND (no display date, or display date today or earlier).
// DATE compared with a 'YYYY-MM-DD' parameter: the zone's today, never the server's CURDATE().
const PUBLISHED = "(v.zichtbaar = 1 AND (v.publicatiedatum IS NULL OR v.publicatiedatum <= ?))";
// The negation written out, so the optimizer still sees ranges of idx_vac_gepubliceerd.
const UNPUBLISHED = "(v.zichtbaar <> 1 OR v.publicatiedatum > ?)";

/**
 * Every column the mapper (and the change feed) reads; one `?`: today. Dates come as text
 * (docs/decisions/legacy-prepared-statements.md).
 */
export const COLUMNS = `v.uuid, v.kop_publiek, v.naam_frontend, v.naam_intern, v.slug, v.teaser, v.taal,
  v.praktijk_ref, v.praktijk_naam, v.praktijk_keuzelijst, v.provincie_code, prov.omschrijving AS provincie_omschrijving,
  v.regio, v.functie_code, func.omschrijving AS functie_omschrijving, v.werktijd, v.contract_type,
  v.inhoud_intro, v.inhoud_profiel, v.inhoud_taken, v.inhoud_aanbod, v.inhoud_contact, v.afbeelding,
  v.status, v.zichtbaar, CAST(v.publicatiedatum AS CHAR) AS publicatiedatum, CAST(v.aangemaakt_op AS CHAR) AS aangemaakt_op,
  CAST(v.gewijzigd_op AS CHAR) AS gewijzigd_op, v.zoekt_verpleegkundige, ${PUBLISHED} AS gepubliceerd`;

// Both code columns are utf8mb4_bin like the lists' primary keys: each join is one eq_ref lookup.
export const LABEL_JOINS = `LEFT JOIN tbl_provincie prov ON prov.provincie_code = v.provincie_code
  LEFT JOIN tbl_functie func ON func.functie_code = v.functie_code`;

/**
 * The equality filters, each with its index `(verwijderd, column)`. InnoDB appends the primary key
 * to a secondary index, so for a given id, filter value and `verwijderd = 0` that index holds at
 * most one entry: checking a second filter is one lookup in a small index, not a row read.
 */
const EQUALITY_FILTERS = [
  {
    key: "practice",
    index: VACANCY_INDEXES.practice,
    term: (a: string) => `${a}.praktijk_ref = ?`,
    values: (f: VacancyFilter) => [f.practice],
  },
  {
    key: "province",
    index: VACANCY_INDEXES.province,
    term: (a: string) => `${a}.provincie_code = ?`,
    values: (f: VacancyFilter) => [f.province],
  },
  {
    key: "position",
    index: VACANCY_INDEXES.position,
    term: (a: string) => `${a}.functie_code = ?`,
    values: (f: VacancyFilter) => [f.position],
  },
  {
    key: "status",
    index: VACANCY_INDEXES.status,
    term: (a: string) => `${a}.status = ?`,
    values: (f: VacancyFilter) => [f.status && statusCodeOf(f.status)],
  },
  // `taal` is case-insensitive (`NL` = `nl`) but only exact nl/fr are a language: the first term
  // seeks in the index, the BINARY one drops the odd spellings the mapper turns into null.
  {
    key: "language",
    index: VACANCY_INDEXES.language,
    term: (a: string) => `${a}.taal = ? AND ${a}.taal = BINARY ?`,
    values: (f: VacancyFilter) => [f.language, f.language],
  },
] as const;

interface RangeFilter {
  index: string;
  term: string;
  value: unknown;
  /** How this index tells live rows from soft-deleted ones. */
  live: string;
  /** Too wide to drive an early page: walking in key order and checking it per row is cheaper. */
  wide: boolean;
}

const LIVE = "v.verwijderd = 0";
// idx_vac_gewijzigd holds no `verwijderd`: rather than read every matching row to check it, look
// the id up among the few deleted ones, which idx_vac_status answers without a row read.
const NOT_DELETED =
  "v.vacature_id NOT IN (SELECT d.vacature_id FROM tbl_vacature d WHERE d.verwijderd <> 0)";

function rangeFiltersOf(filter: VacancyFilter, asOf: AsOf): RangeFilter[] {
  // updated_since first: an incremental sync asks for a short recent window, usually far narrower
  // than "published", so with both it should drive and published be checked on its few rows.
  const ranges: RangeFilter[] = [];
  if (filter.updatedSinceLocal !== undefined)
    ranges.push({
      index: VACANCY_INDEXES.updatedSince,
      term: "v.gewijzigd_op >= ?",
      value: filter.updatedSinceLocal,
      live: NOT_DELETED,
      wide: false,
    });
  if (filter.published !== undefined)
    ranges.push({
      index: VACANCY_INDEXES.published,
      term: filter.published ? PUBLISHED : UNPUBLISHED,
      value: asOf.today,
      live: LIVE,
      wide: true,
    });
  return ranges;
}

/** Every legacy index the statements name; a test checks each exists in the legacy schema. */
export const INDEXES_USED = [
  ...EQUALITY_FILTERS.map((f) => f.index),
  VACANCY_INDEXES.published,
  VACANCY_INDEXES.updatedSince,
  VACANCY_INDEXES.primary,
];

/** Pages that end within this many rows walk an index in key order instead of sorting. */
const EARLY_ROWS = 5_000;

/** `early`: walk an index in key order and stop, else sort; `fromKey`: walk from a page mark. */
interface Plan {
  early: boolean;
  fromKey?: number;
  /** How many ids of the modification window to take, if that plan applies (WINDOW_PREFIX_ROWS). */
  windowPrefix?: number;
  /** The indexes the statement may force (IndexHints); the plan is the same without them. */
  hints: IndexHint;
}

/**
 * An updated_since list without other filters would prove liveness with NOT_DELETED (every deleted
 * id materialised). A page ending within this many rows takes a prefix of the window's ids instead
 * (the rows it needs plus a margin for deleted ones) and checks liveness on those rows: exact when
 * the page comes back full; a short page is read again with NOT_DELETED.
 */
const WINDOW_PREFIX_ROWS = 1_000;
const windowPrefixOf = (page: PageRequest) => Math.ceil((page.offset + page.limit) * 1.25) + 16;

interface Selection {
  from: string;
  where: string;
  params: unknown[];
  windowPrefix: boolean;
  /** The walk meets the rows in primary-key order (no range index drives it). */
  keyOrdered: boolean;
}

/**
 * FROM and WHERE of the vacancies matching `filter`, soft-deleted ones excluded. One index drives:
 * a practice (few vacancies each), else updated_since or published (a covering range), else the
 * first equality filter (in primary-key order, no sort). Every other equality filter is an
 * index-only join on the primary key; a second range filter is checked on the row. On the early
 * plan `published` never drives: the walk is the primary key or the equality index.
 */
function selectionOf(filter: VacancyFilter, asOf: AsOf, plan: Plan): Selection {
  const equalities: ReadonlyArray<(typeof EQUALITY_FILTERS)[number]> = EQUALITY_FILTERS.filter(
    (f) => filter[f.key] !== undefined,
  );
  const ranges = rangeFiltersOf(filter, asOf);
  const drivers = plan.early ? ranges.filter((r) => !r.wide) : ranges;
  const rangeDrives = drivers.length > 0 && equalities[0]?.key !== "practice";
  const drivingRange = rangeDrives ? drivers[0] : undefined;
  const checkedRanges = ranges.filter((r) => r !== drivingRange);
  const drivingEquality = rangeDrives ? undefined : equalities[0];
  const joined = rangeDrives ? equalities : equalities.slice(1);
  // Forced, or the optimizer may enter through a joined index and read `v` rows by primary key.
  const index =
    drivingEquality?.index ?? (drivingRange && joined.length > 0 ? drivingRange.index : undefined);
  const walkPrimary = plan.early && equalities.length === 0 && drivingRange === undefined;
  const params: unknown[] = [];
  const hints = plan.hints;
  let from = `tbl_vacature v${index ? forceIndex(index, hints) : walkPrimary ? forceIndex(VACANCY_INDEXES.primary, hints) : ""}`;
  joined.forEach((f, i) => {
    from += `\n  JOIN tbl_vacature f${i}${forceIndex(f.index, hints)} ON f${i}.vacature_id = v.vacature_id AND f${i}.verwijderd = 0 AND ${f.term(`f${i}`)}`;
    params.push(...f.values(filter));
  });
  // Liveness as the driving index tells it, unless something cheaper proves it already: a joined
  // equality index holds live entries only (`f.verwijderd = 0`), and a range checked on the row
  // reads the row anyway.
  let live = drivingRange?.live ?? LIVE;
  if (live === NOT_DELETED && joined.length > 0) live = "";
  else if (live === NOT_DELETED && checkedRanges.length > 0) live = LIVE;
  if (
    live === NOT_DELETED &&
    drivingRange &&
    plan.windowPrefix !== undefined &&
    plan.fromKey === undefined
  ) {
    return {
      from: `(SELECT v.vacature_id FROM tbl_vacature v${forceIndex(drivingRange.index, hints)}\n    WHERE ${drivingRange.term} ORDER BY v.vacature_id LIMIT ?) w\n  JOIN tbl_vacature v ON v.vacature_id = w.vacature_id`,
      where: LIVE,
      params: [drivingRange.value, plan.windowPrefix],
      windowPrefix: true,
      keyOrdered: false,
    };
  }
  const where = live === "" ? [] : [live];
  if (drivingEquality) {
    where.push(drivingEquality.term("v"));
    params.push(...drivingEquality.values(filter));
  }
  for (const range of drivingRange ? [drivingRange, ...checkedRanges] : checkedRanges) {
    where.push(range.term);
    params.push(range.value);
  }
  if (plan.fromKey !== undefined) {
    where.push("v.vacature_id >= ?");
    params.push(plan.fromKey);
  }
  return {
    from,
    where: where.length > 0 ? where.join(" AND ") : "TRUE",
    params,
    windowPrefix: false,
    keyOrdered: drivingRange === undefined,
  };
}

export function countStatement(
  filter: VacancyFilter,
  asOf: AsOf,
  hints: IndexHint = EVERY_INDEX,
): Statement {
  const s = selectionOf(filter, asOf, { early: false, hints });
  return { sql: `SELECT COUNT(*) AS n FROM ${s.from}\nWHERE ${s.where}`, params: s.params };
}

/**
 * One page ordered by the immutable integer primary key, so walking every page yields each vacancy
 * once. The page's ids come first, from indexes only, then only those rows are read (a deep OFFSET
 * skips index entries, not rows); a page with nothing to skip whose walk is in key order reads each
 * row as it matches instead. `fromKey`: `page.offset` counts from this row key (a page mark).
 */
export function pageStatement(
  filter: VacancyFilter,
  asOf: AsOf,
  page: PageRequest,
  plan: { earlyRows?: number; fromKey?: number; windowPrefix?: boolean; hints?: IndexHint } = {},
): Statement & { windowPrefix: boolean } {
  const early =
    plan.fromKey !== undefined || page.offset + page.limit <= (plan.earlyRows ?? EARLY_ROWS);
  const prefixed =
    plan.windowPrefix !== false &&
    page.offset + page.limit <= Math.min(WINDOW_PREFIX_ROWS, plan.earlyRows ?? EARLY_ROWS);
  const s = selectionOf(filter, asOf, {
    early,
    fromKey: plan.fromKey,
    windowPrefix: prefixed ? windowPrefixOf(page) : undefined,
    hints: plan.hints ?? EVERY_INDEX,
  });
  if (early && page.offset === 0 && s.keyOrdered) {
    return {
      windowPrefix: false,
      sql: `SELECT ${COLUMNS}
FROM ${s.from}
${LABEL_JOINS}
WHERE ${s.where}
ORDER BY v.vacature_id LIMIT ?`,
      params: [asOf.today, ...s.params, page.limit],
    };
  }
  return {
    windowPrefix: s.windowPrefix,
    sql: `SELECT ${COLUMNS}
FROM (SELECT v.vacature_id FROM ${s.from}
  WHERE ${s.where} ORDER BY v.vacature_id LIMIT ? OFFSET ?) page
JOIN tbl_vacature v ON v.vacature_id = page.vacature_id
${LABEL_JOINS}
ORDER BY v.vacature_id`,
    params: [asOf.today, ...s.params, page.limit, page.offset],
  };
}

/** The row key at every `spacing`-th position of the list, in list order (one sort of its ids). */
export function marksStatement(
  filter: VacancyFilter,
  asOf: AsOf,
  spacing: number,
  hints: IndexHint = EVERY_INDEX,
): Statement {
  const s = selectionOf(filter, asOf, { early: false, hints });
  return {
    sql: `SELECT vacature_id AS rowKey FROM (SELECT v.vacature_id, ROW_NUMBER() OVER (ORDER BY v.vacature_id) AS n FROM ${s.from}
  WHERE ${s.where}) numbered
WHERE MOD(n - 1, ?) = 0 ORDER BY vacature_id`,
    params: [...s.params, spacing],
  };
}

export function singleStatement(uuid: string, asOf: AsOf): Statement {
  return {
    sql: `SELECT ${COLUMNS} FROM tbl_vacature v ${LABEL_JOINS} WHERE v.uuid = ? AND v.verwijderd = 0`,
    params: [asOf.today, uuid],
  };
}

/** The vacancy's practice, for application intake. */
export const LINK_SQL = "SELECT praktijk_ref FROM tbl_vacature WHERE uuid = ? AND verwijderd = 0";

/** The reference lists in the primary system's display order; inactive entries stay. */
export const REFERENCE_LIST_SQL = {
  positions:
    "SELECT functie_code AS code, omschrijving AS label, actief FROM tbl_functie ORDER BY volgorde, functie_code",
  provinces:
    "SELECT provincie_code AS code, omschrijving AS label, actief FROM tbl_provincie ORDER BY volgorde, provincie_code",
} as const;

/** The index hints of a vacancy source or feed: the vacancy table's indexes, looked up once. */
export const vacancyIndexHints = (db: LegacyDb): IndexHints =>
  new IndexHints((sql) => db.query(sql), ["tbl_vacature"]);

const MARK_SPACING = 250;

/**
 * A page past EARLY_ROWS needs every matching id before it sorted. With `marks` (PageMarks) it
 * walks in key order from the mark at or before its offset instead: rows are read fresh, only its
 * start may lag by the marks' age. updated_since lists (not in key order) always sort.
 */
export class MysqlVacancySource implements VacancySource {
  readonly #db: LegacyDb;
  /** Counts and page marks: their cost grows with the list, not the page. */
  readonly #countDb: LegacyDb;
  readonly #toIso: LocalToIso;
  readonly #earlyRows: number;
  readonly #marks: PageMarks<number> | undefined;
  readonly #hints: IndexHints;

  /**
   * `zone`: the legacy DATETIMEs' wall-clock zone. `earlyRows` (tests): EARLY_ROWS; 0 puts every
   * page on the deep-page plans. `countDb`: where COUNTs and page marks run (default `db`). The
   * indexes are looked up from here on (IndexHints).
   */
  constructor(
    db: LegacyDb,
    zone: string,
    options: { earlyRows?: number; marks?: PageMarkOptions; countDb?: LegacyDb } = {},
  ) {
    this.#db = db;
    this.#countDb = options.countDb ?? db;
    this.#toIso = zonedIso(zone);
    this.#earlyRows = options.earlyRows ?? EARLY_ROWS;
    this.#marks = PageMarks.of(options.marks, { spacing: MARK_SPACING });
    this.#hints = vacancyIndexHints(db);
    this.#hints.prefetch();
  }

  page(filter: VacancyFilter, asOf: AsOf, page: PageRequest): Promise<Vacancy[]> {
    return this.#hints.run((hints) => this.#page(filter, asOf, page, hints));
  }

  async #page(
    filter: VacancyFilter,
    asOf: AsOf,
    page: PageRequest,
    hints: IndexHint,
  ): Promise<Vacancy[]> {
    const statement = await this.#pageStatement(filter, asOf, page, hints);
    let rows = await this.#db.query<VacancyRow>(statement.sql, statement.params);
    if (statement.windowPrefix && rows.length < page.limit) {
      // A short page from a window prefix may have lost rows to deleted ones: read it exactly.
      const exact = pageStatement(filter, asOf, page, {
        earlyRows: this.#earlyRows,
        windowPrefix: false,
        hints,
      });
      rows = await this.#db.query<VacancyRow>(exact.sql, exact.params);
    }
    return rows.map((row) => toVacancy(row, this.#toIso));
  }

  async #pageStatement(
    filter: VacancyFilter,
    asOf: AsOf,
    page: PageRequest,
    hints: IndexHint,
  ): Promise<Statement & { windowPrefix: boolean }> {
    const marks = this.#marks;
    if (
      !marks ||
      page.offset + page.limit <= this.#earlyRows ||
      filter.updatedSinceLocal !== undefined
    )
      return pageStatement(filter, asOf, page, { earlyRows: this.#earlyRows, hints });
    // Past the last mark (the list grew, or the page is past its end) it walks from the last one.
    const start = await marks.start(listKey(filter, asOf), page.offset, (spacing) =>
      this.#readMarks(filter, asOf, spacing, hints),
    );
    if (!start)
      return pageStatement(filter, asOf, page, { earlyRows: Number.POSITIVE_INFINITY, hints });
    return pageStatement(
      filter,
      asOf,
      { offset: start.offset, limit: page.limit },
      { fromKey: start.key, hints },
    );
  }

  async #readMarks(
    filter: VacancyFilter,
    asOf: AsOf,
    spacing: number,
    hints: IndexHint,
  ): Promise<number[]> {
    const statement = marksStatement(filter, asOf, spacing, hints);
    const rows = await this.#countDb.query<{ rowKey: number }>(statement.sql, statement.params);
    return rows.map((row) => Number(row.rowKey));
  }

  async count(filter: VacancyFilter, asOf: AsOf): Promise<number> {
    const [row] = await this.#hints.run((hints) => {
      const statement = countStatement(filter, asOf, hints);
      return this.#countDb.query<{ n: number | string }>(statement.sql, statement.params);
    });
    return Number(row?.n ?? 0);
  }

  async get(uuid: string, asOf: AsOf): Promise<Vacancy | null> {
    const statement = singleStatement(uuid, asOf);
    const [row] = await this.#db.query<VacancyRow>(statement.sql, statement.params);
    return row ? toVacancy(row, this.#toIso) : null;
  }

  async link(uuid: string): Promise<VacancyLink | null> {
    const [row] = await this.#db.query<{ praktijk_ref: string | null }>(LINK_SQL, [uuid]);
    return row ? { practiceId: row.praktijk_ref } : null;
  }

  async referenceLists(): Promise<ReferenceLists> {
    // Inactive entries stay: older vacancies refer to them.
    const [positions, provinces] = await Promise.all([
      this.#db.query<ReferenceRow>(REFERENCE_LIST_SQL.positions),
      this.#db.query<ReferenceRow>(REFERENCE_LIST_SQL.provinces),
    ]);
    return {
      positions: positions.map(toReferenceEntry),
      provinces: provinces.map(toReferenceEntry),
    };
  }
}

/**
 * The source as the service runs it, from its settings (main.ts and the read benchmark alike);
 * `countDb`: the pool for counts and page marks (VACANCY_COUNT_POOL_MAX, VACANCY_COUNT_TIMEOUT_MS).
 */
export function vacancySourceFor(
  db: LegacyDb,
  settings: { TIME_ZONE: string; VACANCY_PAGE_MARKS_CACHE_MS: number },
  now: () => number = Date.now,
  countDb: LegacyDb = db,
): MysqlVacancySource {
  return new MysqlVacancySource(db, settings.TIME_ZONE, {
    marks: { ttlMs: settings.VACANCY_PAGE_MARKS_CACHE_MS, now },
    countDb,
  });
}

/** The pool for counts and page marks, beside the service's pool `main` settings. */
export function countingDb(
  settings: {
    LEGACY_DATABASE_URL: string;
    LEGACY_CONNECT_TIMEOUT_MS: number;
    VACANCY_COUNT_TIMEOUT_MS: number;
    VACANCY_COUNT_POOL_MAX: number;
  },
  meter?: LegacyDbOptions["meter"],
): LegacyDb {
  return createLegacyDb({
    url: settings.LEGACY_DATABASE_URL,
    connectTimeoutMs: settings.LEGACY_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: settings.VACANCY_COUNT_TIMEOUT_MS,
    connectionLimit: settings.VACANCY_COUNT_POOL_MAX,
    ...(meter ? { meter } : {}),
  });
}
