/**
 * Both practice sources of the legacy primary database as ONE union: primary-system practices
 * (tbl_praktijk, one representative row per crm_ref, with its CRM row) UNION ALL secondary-source
 * practices (crm_bedrijf rows without any tbl_praktijk row). An id in both sources appears only in
 * the first branch, so the primary-system practice wins. Filters, order and totals are pushed down
 * into SQL; with the mapper, the only place with legacy names.
 */
import { createLegacyDb, type LegacyDb, type LegacyDbOptions } from "@svc/db";
import { PageMarks, type PageMarkOptions } from "@svc/paging";
import { listKey, type Practice, type PracticeFilters } from "../domain/practice.ts";
import type { ObservedValue, PracticeSource } from "../domain/ports.ts";
import { toPractice, type PracticeRow } from "./to-practice.ts";

interface Fragment {
  text: string;
  params: unknown[];
}

// The representative row of a primary practice (our reading where the contract is silent):
// active and visible rows first, then the latest gewijzigd_op, then the highest praktijk_id. Each
// row gets a fixed-width, all-digit key in exactly that order, so MAX over the practice's rows is
// its representative row's key: one streamed GROUP BY in crm_ref index order that can stop after a
// page, instead of a correlated subquery per row. Characters after the id are per-row flags (which
// filter the row passes); the max key's flags are therefore the representative row's.
//   [1] active and visible  [2-15] gewijzigd_op  [16-25] praktijk_id  [26…] filter flags
const AV = "(p.actief <=> 1 AND p.zichtbaar <=> 1)";
const KEY_ORDER = `${AV}, COALESCE(DATE_FORMAT(p.gewijzigd_op, '%Y%m%d%H%i%s'), '00000000000000'), LPAD(p.praktijk_id, 10, '0')`;
const REP_ID = "CAST(SUBSTRING(u.rep_key, 16, 10) AS UNSIGNED)";
const FLAGS_AT = 26;

// Text columns use a case-insensitive collation: the first term can use an index, the BINARY
// term makes the match exact (`NL` is not `nl`; `antwerpen` is not `Antwerpen`).
const exact = (column: string, value: string): Fragment => ({
  text: `${column} = ? AND ${column} = BINARY ?`,
  params: [value, value],
});

/** Secondary `active`: today within the period, bounds inclusive, a missing bound open. */
const secondaryActive = (today: string): Fragment => ({
  text: `((c.periode_start IS NULL OR c.periode_start = '0000-00-00' OR c.periode_start <= ?)
    AND (c.periode_stop IS NULL OR c.periode_stop = '0000-00-00' OR c.periode_stop >= ?))`,
  params: [today, today],
});

const negate = (f: Fragment, yes: boolean): Fragment =>
  yes ? f : { text: `NOT ${f.text}`, params: f.params };

function join(parts: Fragment[], separator: string): Fragment {
  return { text: parts.map((p) => p.text).join(separator), params: parts.flatMap((p) => p.params) };
}

/**
 * Which practices a statement may return: those among `ids`, and/or those from `from` on in
 * practice_id order (keyset paging for change detection). A bound value, never SQL text.
 */
export interface Scope {
  ids?: readonly string[];
  from?: string;
}

function scopeTerms(column: string, scope: Scope): Fragment[] {
  const terms: Fragment[] = [];
  // One id (a single read) is an equality, so the statement text never varies and stays prepared;
  // a list is bound as one value list (`IN (?)`, which only the text protocol expands).
  if (scope.ids?.length === 1) terms.push({ text: `${column} = ?`, params: [scope.ids[0]] });
  else if (scope.ids !== undefined) terms.push({ text: `${column} IN (?)`, params: [scope.ids] });
  if (scope.from !== undefined) terms.push({ text: `${column} >= ?`, params: [scope.from] });
  return terms;
}

interface Branch {
  select: Fragment;
  /** Whether a filter reads the representative key (otherwise COUNT needs the id alone). */
  keyed: boolean;
  from: Fragment;
  where: Fragment;
  tail: Fragment;
}

/** Primary-system practices: one group per crm_ref, with its representative row's key. */
function primaryBranch(f: PracticeFilters, scope: Scope): Branch {
  const from: Fragment[] = [];
  const where: Fragment[] = [{ text: "TRUE", params: [] }];
  const flags: Fragment[] = [];
  const having: Fragment[] = [];
  const flag = (rowTest: Fragment, wanted: boolean) => {
    having.push({
      text: `SUBSTRING(rep_key, ${FLAGS_AT + flags.length}, 1) = '${wanted ? 1 : 0}'`,
      params: [],
    });
    flags.push(rowTest);
  };
  if (f.search !== undefined) {
    // Name = CRM name, else the primary copy. Driving from the two name indexes (a case-insensitive
    // superset) keeps an exact-name search from reading every practice.
    from.push({
      text: "(SELECT crm_id AS ref FROM crm_bedrijf WHERE naam = ? UNION SELECT crm_ref FROM tbl_praktijk WHERE naam = ?) cand STRAIGHT_JOIN tbl_praktijk p ON p.crm_ref = cand.ref",
      params: [f.search, f.search],
    });
  } else {
    from.push({ text: "tbl_praktijk p", params: [] });
  }
  // The CRM row matters here only to the filters that read it (name, province).
  if (f.search !== undefined || f.province !== undefined)
    from.push({ text: "LEFT JOIN crm_bedrijf c ON c.crm_id = p.crm_ref", params: [] });
  where.push(...scopeTerms("p.crm_ref", scope));
  // The CRM row is the same for all the practice's rows: a WHERE on it keeps or drops the group.
  if (f.province !== undefined) where.push(exact("c.provincie", f.province));
  if (f.active !== undefined)
    having.push({ text: `LEFT(rep_key, 1) = '${f.active ? 1 : 0}'`, params: [] });
  if (f.visible !== undefined) flag({ text: "(p.zichtbaar <=> 1)", params: [] }, f.visible);
  if (f.language !== undefined) flag({ text: "(p.taal <=> BINARY ?)", params: [f.language] }, true);
  if (f.search !== undefined)
    flag(
      {
        text: "(COALESCE(NULLIF(c.naam, ''), NULLIF(p.naam, '')) <=> BINARY ?)",
        params: [f.search],
      },
      true,
    );
  const key = join([{ text: KEY_ORDER, params: [] }, ...flags], ", ");
  const select = {
    text: `p.crm_ref AS practice_id, 'primary' AS bron, MAX(CONCAT(${key.text})) AS rep_key, SUM(${AV}) AS actieve_rijen`,
    params: key.params,
  };
  return {
    select,
    keyed: having.length > 0,
    from: join(from, " "),
    where: join(where, " AND "),
    tail: {
      text: ` GROUP BY p.crm_ref${having.length > 0 ? ` HAVING ${join(having, " AND ").text}` : ""}`,
      params: [],
    },
  };
}

/** Secondary-source practices: CRM records that no primary row refers to; always visible. */
function secondaryBranch(f: PracticeFilters, today: string, scope: Scope): Branch {
  const where: Fragment[] = [{ text: "x.praktijk_id IS NULL", params: [] }];
  where.push(...scopeTerms("c.crm_id", scope));
  if (f.active !== undefined) where.push(negate(secondaryActive(today), f.active));
  if (f.visible === false) where.push({ text: "FALSE", params: [] });
  if (f.language !== undefined) where.push(exact("c.taal", f.language));
  if (f.province !== undefined) where.push(exact("c.provincie", f.province));
  if (f.search !== undefined) where.push(exact("c.naam", f.search));
  // A LEFT JOIN anti-join: MariaDB materialises NOT EXISTS over all of tbl_praktijk.
  return {
    select: { text: "c.crm_id, 'secondary', NULL, 0", params: [] },
    keyed: false,
    from: { text: "crm_bedrijf c LEFT JOIN tbl_praktijk x ON x.crm_ref = c.crm_id", params: [] },
    where: join(where, " AND "),
    tail: { text: "", params: [] },
  };
}

function statement(b: Branch, order = "", select = b.select): Fragment {
  return join(
    [
      { text: "SELECT", params: [] },
      select,
      { text: "FROM", params: [] },
      b.from,
      { text: "WHERE", params: [] },
      b.where,
      b.tail,
      { text: order, params: [] },
    ],
    " ",
  );
}

// The period's DATE columns come as text ('YYYY-MM-DD', as the driver would build them), cheaper
// for mysql2 than the binary protocol's parts. Why: docs/decisions/legacy-prepared-statements.md.
const DETAILS = `page.bron, page.practice_id, page.actieve_rijen,
  p.naam AS praktijk_naam, p.actief, p.zichtbaar, p.taal AS praktijk_taal, p.logo, p.regio_tekst, p.contact_tekst, p.coach_mdw_ref,
  (SELECT JSON_ARRAYAGG(t.tdm_ref) FROM tbl_praktijk m JOIN tbl_praktijk_tdm t ON t.praktijk_id = m.praktijk_id WHERE m.crm_ref = page.practice_id) AS tdm_refs,
  c.crm_id, c.naam AS crm_naam, c.alias, c.organisatie_type, c.btw_nummer, c.straat, c.postcode, c.gemeente, c.provincie, c.land,
  c.email, c.telefoon, c.taal AS crm_taal,
  CAST(c.periode_start AS CHAR) AS periode_start, CAST(c.periode_stop AS CHAR) AS periode_stop, pc.breedtegraad, pc.lengtegraad`;

interface Window {
  limit: number;
  offset: number;
}

/**
 * One page of the union in practice_id order (both id columns are utf8mb4_bin: a stable, binary
 * order). Each branch is cut at offset+limit first, so a page reads about a page from each index;
 * only the page's keys are then joined to their details. `scope`: one id, or a Scope.
 */
export function pageSql(
  f: PracticeFilters,
  today: string,
  w: Window,
  scope: string | Scope = {},
): Fragment {
  const k = w.offset + w.limit;
  const within = typeof scope === "string" ? { ids: [scope] } : scope;
  const primary = statement(primaryBranch(f, within), "ORDER BY p.crm_ref LIMIT ?");
  const secondary = statement(secondaryBranch(f, today, within), "ORDER BY c.crm_id LIMIT ?");
  return {
    text: `SELECT ${DETAILS}
FROM (
  SELECT u.practice_id, u.bron, ${REP_ID} AS rep_id, u.actieve_rijen FROM ((${primary.text}) UNION ALL (${secondary.text})) u
  ORDER BY u.practice_id LIMIT ? OFFSET ?
) page
LEFT JOIN tbl_praktijk p ON p.praktijk_id = page.rep_id
LEFT JOIN crm_bedrijf c ON c.crm_id = page.practice_id
LEFT JOIN tbl_postcode pc ON pc.postcode = c.postcode
ORDER BY page.practice_id`,
    params: [...primary.params, k, ...secondary.params, k, w.limit, w.offset],
  };
}

/**
 * The whole union of the filtered practices, as a derived table `u` with a `practice_id` column.
 * When no filter reads the representative key, both branches select the id alone, which saves
 * building the key for every row.
 */
function unionOf(f: PracticeFilters, today: string): Fragment {
  const p = primaryBranch(f, {});
  const s = secondaryBranch(f, today, {});
  const primary = p.keyed
    ? statement(p)
    : statement(p, "", { text: "p.crm_ref AS practice_id", params: [] });
  const secondary = p.keyed ? statement(s) : statement(s, "", { text: "c.crm_id", params: [] });
  return {
    text: `((${primary.text}) UNION ALL (${secondary.text})) u`,
    params: [...primary.params, ...secondary.params],
  };
}

/** COUNT over the same union as pageSql. */
export function countSql(f: PracticeFilters, today: string): Fragment {
  const u = unionOf(f, today);
  return { text: `SELECT COUNT(*) AS total FROM ${u.text}`, params: u.params };
}

/**
 * The page marks of a list: the practice_id at every `spacing`-th position (0, spacing, ...) of
 * the practices matching `f`, in list order. One pass over the union, about what its COUNT costs.
 */
export function marksSql(f: PracticeFilters, today: string, spacing: number): Fragment {
  const u = unionOf(f, today);
  return {
    text: `SELECT practice_id FROM (SELECT u.practice_id, ROW_NUMBER() OVER (ORDER BY u.practice_id) AS n FROM ${u.text}) numbered
WHERE MOD(n - 1, ?) = 0 ORDER BY practice_id`,
    params: [...u.params, spacing],
  };
}

// Free-text fields whose sources hold a small set worth publishing (metadata `observed_values`).
// Grouped under a binary collation so `BE` and `be` stay two values, as the API returns them.
const OBSERVED: Record<string, string> = {
  organisation_type: "organisatie_type",
  "address.country": "land",
  "address.province": "provincie",
};
export const OBSERVED_LIMIT = 50;

export function observedSql(): string {
  return Object.entries(OBSERVED)
    .map(
      ([
        path,
        column,
      ]) => `(SELECT '${path}' AS path, ${column} COLLATE utf8mb4_bin AS value, COUNT(*) AS n FROM crm_bedrijf
      WHERE ${column} IS NOT NULL GROUP BY value ORDER BY n DESC, value LIMIT ${OBSERVED_LIMIT})`,
    )
    .join(" UNION ALL ");
}

/** One mark per page at the default page size: a marked page of 25 reads what page 1 reads. */
const MARK_SPACING = 25;
const MARKED_LISTS = 64;

/**
 * Both sources as one list. Cut from the start, each branch produces offset + limit practices
 * before the union is cut, so the cost grows with the page number. With `marks` (PageMarks) a page
 * is cut from the mark at or before its offset (`practice_id >= mark` in both branches), read
 * fresh; only its start may lag by the marks' age. An exact-name search never uses marks.
 * Why: docs/decisions/list-pages.md.
 */
export class MysqlPracticeSource implements PracticeSource {
  readonly #db: LegacyDb;
  readonly #countDb: LegacyDb;
  readonly #marks: PageMarks<string> | undefined;

  /** `countDb`: where COUNTs and page marks run (default `db`); they grow with the union. */
  constructor(db: LegacyDb, options: { marks?: PageMarkOptions; countDb?: LegacyDb } = {}) {
    this.#db = db;
    this.#countDb = options.countDb ?? db;
    this.#marks = PageMarks.of(options.marks, { spacing: MARK_SPACING, maxEntries: MARKED_LISTS });
  }

  async page(filters: PracticeFilters, today: string, window: Window): Promise<Practice[]> {
    const q = await this.#pageSql(filters, today, window);
    const rows = await this.#db.query<PracticeRow>(q.text, q.params);
    return rows.map((row) => toPractice(row, today));
  }

  async #pageSql(filters: PracticeFilters, today: string, window: Window): Promise<Fragment> {
    const marks = this.#marks;
    if (!marks || window.offset < marks.spacing || filters.search !== undefined)
      return pageSql(filters, today, window);
    // Past the last mark (the list shrank, or the page is past its end): cut from the last one.
    const start = await marks.start(listKey(filters, today), window.offset, (spacing) =>
      this.#readMarks(filters, today, spacing),
    );
    if (!start || start.index === 0) return pageSql(filters, today, window);
    return pageSql(
      filters,
      today,
      { limit: window.limit, offset: start.offset },
      { from: start.key },
    );
  }

  async #readMarks(filters: PracticeFilters, today: string, spacing: number): Promise<string[]> {
    const q = marksSql(filters, today, spacing);
    const rows = await this.#countDb.query<{ practice_id: string }>(q.text, q.params);
    return rows.map((row) => row.practice_id);
  }

  async count(filters: PracticeFilters, today: string): Promise<number> {
    const q = countSql(filters, today);
    const rows = await this.#countDb.query<{ total: number | string }>(q.text, q.params);
    return Number(rows[0]?.total ?? 0);
  }

  async get(practiceId: string, today: string): Promise<Practice | null> {
    const q = pageSql({}, today, { limit: 2, offset: 0 }, practiceId);
    const rows = await this.#db.query<PracticeRow>(q.text, q.params);
    // utf8mb4_bin pads with spaces (`'OUD 0042 '` = `'OUD 0042'`): only the exact id is this one.
    const row = rows.find((r) => r.practice_id === practiceId);
    return row ? toPractice(row, today) : null;
  }

  async observedValues(): Promise<Record<string, ObservedValue[]>> {
    const rows = await this.#db.query<{ path: string; value: string; n: number | string }>(
      observedSql(),
    );
    const out: Record<string, ObservedValue[]> = Object.fromEntries(
      Object.keys(OBSERVED).map((path) => [path, []]),
    );
    for (const row of rows)
      out[row.path]?.push({ value: row.value, note: `held by ${Number(row.n)} CRM records` });
    return out;
  }
}

/**
 * The source as the service runs it, from its settings (main.ts and the read benchmark alike);
 * `countDb`: the pool for counts and page marks (PRACTICE_COUNT_POOL_MAX, PRACTICE_COUNT_TIMEOUT_MS).
 */
export function practiceSourceFor(
  db: LegacyDb,
  settings: { PRACTICE_PAGE_MARKS_CACHE_MS: number },
  now: () => number = Date.now,
  countDb: LegacyDb = db,
): MysqlPracticeSource {
  return new MysqlPracticeSource(db, {
    marks: { ttlMs: settings.PRACTICE_PAGE_MARKS_CACHE_MS, now },
    countDb,
  });
}

/** The pool for counts and page marks, beside the service's pool `main` settings. */
export function countingDb(
  settings: {
    LEGACY_DATABASE_URL: string;
    LEGACY_CONNECT_TIMEOUT_MS: number;
    PRACTICE_COUNT_TIMEOUT_MS: number;
    PRACTICE_COUNT_POOL_MAX: number;
  },
  meter?: LegacyDbOptions["meter"],
): LegacyDb {
  return createLegacyDb({
    url: settings.LEGACY_DATABASE_URL,
    connectTimeoutMs: settings.LEGACY_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: settings.PRACTICE_COUNT_TIMEOUT_MS,
    connectionLimit: settings.PRACTICE_COUNT_POOL_MAX,
    ...(meter ? { meter } : {}),
  });
}
