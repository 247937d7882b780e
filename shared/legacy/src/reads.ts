/**
 * What the services read from the legacy primary database, written down once: per canonical field
 * the table and column it comes from and the column types the mappers handle, and the indexes the
 * list statements rely on. The sources' tests derive the columns from the sources' own SQL and
 * compare them with this list, so it cannot drift from what is read; `npm run legacy:check`
 * compares a real database with it (src/check/legacy-check.ts). Index names are those of the
 * sandbox schema (schema.ts); a source names one in a hint only where IndexHints found it, with the
 * same leading columns, in the database it reads (docs/decisions/legacy-index-hints.md).
 */
import { legacySchemaStatements, type LegacyTable } from "./schema.ts";

/** The kinds of column a mapper handles; each accepts the MySQL data types in KIND_TYPES. */
export type ColumnKind = "text" | "integer" | "date" | "datetime" | "decimal";

/** `information_schema.COLUMNS.DATA_TYPE` values each kind accepts. */
export const KIND_TYPES: Readonly<Record<ColumnKind, readonly string[]>> = {
  text: ["char", "varchar", "tinytext", "text", "mediumtext", "longtext"],
  integer: ["tinyint", "smallint", "mediumint", "int", "bigint"],
  // A DATE is compared with 'YYYY-MM-DD' and read as that text; a DATETIME would carry a time.
  date: ["date"],
  // Wall-clock values of the legacy zone; a TIMESTAMP is converted by the session's zone instead.
  datetime: ["datetime"],
  decimal: ["decimal", "float", "double"],
};

export interface ColumnRead {
  table: LegacyTable;
  column: string;
  kind: ColumnKind;
  /**
   * An id or code compared exactly and used as a sort key: a `_bin` collation is expected (a
   * case-insensitive one merges ids and changes the order pages are cut in).
   */
  binary?: boolean;
}

export type LegacyReader = "vacancies" | "practices";

export interface FieldRead {
  service: LegacyReader;
  /** The canonical field (contract name), or in parentheses what the service uses it for. */
  field: string;
  columns: readonly ColumnRead[];
}

const col = (table: LegacyTable, column: string, kind: ColumnKind, binary = false): ColumnRead =>
  binary ? { table, column, kind, binary } : { table, column, kind };
const vac = (column: string, kind: ColumnKind, binary = false) =>
  col("tbl_vacature", column, kind, binary);
const prk = (column: string, kind: ColumnKind, binary = false) =>
  col("tbl_praktijk", column, kind, binary);
const crm = (column: string, kind: ColumnKind, binary = false) =>
  col("crm_bedrijf", column, kind, binary);

const vacancies = (field: string, ...columns: ColumnRead[]): FieldRead => ({
  service: "vacancies",
  field,
  columns,
});
const practices = (field: string, ...columns: ColumnRead[]): FieldRead => ({
  service: "practices",
  field,
  columns,
});

/** Every column each service reads, by the canonical field it feeds: the column → field map. */
export const LEGACY_READS: readonly FieldRead[] = [
  vacancies("(row key: list order)", vac("vacature_id", "integer")),
  vacancies("(soft delete)", vac("verwijderd", "integer")),
  vacancies("uuid", vac("uuid", "text", true)),
  vacancies(
    "title",
    vac("kop_publiek", "text"),
    vac("naam_frontend", "text"),
    vac("naam_intern", "text"),
  ),
  vacancies("slug", vac("slug", "text")),
  vacancies("teaser", vac("teaser", "text")),
  vacancies("language", vac("taal", "text")),
  vacancies("practice.legacy_reference", vac("praktijk_ref", "text", true)),
  vacancies("practice.name", vac("praktijk_naam", "text")),
  vacancies("practice.type", vac("praktijk_keuzelijst", "text")),
  vacancies(
    "location.province",
    vac("provincie_code", "text", true),
    col("tbl_provincie", "provincie_code", "text", true),
    col("tbl_provincie", "omschrijving", "text"),
  ),
  vacancies("location.region", vac("regio", "text")),
  vacancies(
    "position",
    vac("functie_code", "text", true),
    col("tbl_functie", "functie_code", "text", true),
    col("tbl_functie", "omschrijving", "text"),
  ),
  vacancies("employment.time", vac("werktijd", "text")),
  vacancies("employment.contract", vac("contract_type", "text")),
  vacancies(
    "content",
    vac("inhoud_intro", "text"),
    vac("inhoud_profiel", "text"),
    vac("inhoud_taken", "text"),
    vac("inhoud_aanbod", "text"),
    vac("inhoud_contact", "text"),
  ),
  vacancies("image", vac("afbeelding", "text")),
  vacancies("status", vac("status", "integer")),
  vacancies("visible, published", vac("zichtbaar", "integer")),
  vacancies("display_date, published", vac("publicatiedatum", "date")),
  vacancies("created_at", vac("aangemaakt_op", "datetime")),
  vacancies("updated_at, updated_since", vac("gewijzigd_op", "datetime")),
  vacancies("seeking_nurse_code", vac("zoekt_verpleegkundige", "text")),
  vacancies(
    "metadata positions",
    col("tbl_functie", "functie_code", "text", true),
    col("tbl_functie", "omschrijving", "text"),
    col("tbl_functie", "actief", "integer"),
    col("tbl_functie", "volgorde", "integer"),
  ),
  vacancies(
    "metadata provinces",
    col("tbl_provincie", "provincie_code", "text", true),
    col("tbl_provincie", "omschrijving", "text"),
    col("tbl_provincie", "actief", "integer"),
    col("tbl_provincie", "volgorde", "integer"),
  ),

  practices("practice_id", prk("crm_ref", "text", true), crm("crm_id", "text", true)),
  practices(
    "(representative row)",
    prk("praktijk_id", "integer"),
    prk("actief", "integer"),
    prk("zichtbaar", "integer"),
    prk("gewijzigd_op", "datetime"),
  ),
  practices("(change detection)", prk("gewijzigd_op", "datetime"), crm("gewijzigd_op", "datetime")),
  practices("name, search", crm("naam", "text"), prk("naam", "text")),
  practices("active", prk("actief", "integer"), prk("zichtbaar", "integer")),
  practices("visible", prk("zichtbaar", "integer")),
  practices("language", prk("taal", "text"), crm("taal", "text")),
  practices("presentation.logo", prk("logo", "text")),
  practices("presentation.region_text", prk("regio_tekst", "text")),
  practices("presentation.contact_text", prk("contact_tekst", "text")),
  practices("coach.reference", prk("coach_mdw_ref", "text")),
  practices(
    "external_refs.tdm_ids",
    prk("praktijk_id", "integer"),
    col("tbl_praktijk_tdm", "praktijk_id", "integer"),
    col("tbl_praktijk_tdm", "tdm_ref", "text", true),
  ),
  practices("alias", crm("alias", "text")),
  practices("organisation_type", crm("organisatie_type", "text")),
  practices("identifiers.vat", crm("btw_nummer", "text")),
  practices("address.street", crm("straat", "text")),
  practices(
    "address.postal_code",
    crm("postcode", "text"),
    col("tbl_postcode", "postcode", "text"),
  ),
  practices("address.city", crm("gemeente", "text")),
  practices("address.province", crm("provincie", "text")),
  practices("address.country", crm("land", "text")),
  practices(
    "address.latitude, address.longitude",
    col("tbl_postcode", "breedtegraad", "decimal"),
    col("tbl_postcode", "lengtegraad", "decimal"),
  ),
  practices("contact.email", crm("email", "text")),
  practices("contact.phone", crm("telefoon", "text")),
  practices(
    "period, active (secondary)",
    crm("periode_start", "date"),
    crm("periode_stop", "date"),
  ),
];

/** `table.column` of every column a service reads. */
export function columnsReadBy(service: LegacyReader): Set<string> {
  return new Set(
    LEGACY_READS.filter((f) => f.service === service).flatMap((f) =>
      f.columns.map((c) => `${c.table}.${c.column}`),
    ),
  );
}

export interface IndexUse {
  service: LegacyReader;
  /** The list filter (or other read) the index serves. */
  use: string;
  table: LegacyTable;
  /** The sandbox schema's name; its columns are the sandbox schema's (sandboxIndexes). */
  index: string;
  /** The statements force it (FORCE INDEX) where it exists; otherwise the optimizer picks. */
  forced: boolean;
}

/** The sandbox index names the sources force, by what they are for. */
export const VACANCY_INDEXES = {
  practice: "idx_vac_praktijk",
  province: "idx_vac_provincie",
  position: "idx_vac_functie",
  status: "idx_vac_status",
  language: "idx_vac_taal",
  published: "idx_vac_gepubliceerd",
  updatedSince: "idx_vac_gewijzigd",
  primary: "PRIMARY",
} as const;

export const PRACTICE_INDEXES = {
  practiceModified: "idx_praktijk_gewijzigd",
  crmModified: "idx_crm_gewijzigd",
} as const;

const v = (use: string, index: string, forced = true): IndexUse => ({
  service: "vacancies",
  use,
  table: "tbl_vacature",
  index,
  forced,
});

/** The indexes each list filter (and change detection) uses, as the sources' statements name them. */
export const INDEX_USES: readonly IndexUse[] = [
  v("(no filter), first pages", VACANCY_INDEXES.primary),
  v("language", VACANCY_INDEXES.language),
  v("province", VACANCY_INDEXES.province),
  v("position", VACANCY_INDEXES.position),
  v("status; soft-deleted ids", VACANCY_INDEXES.status),
  v("practice", VACANCY_INDEXES.practice),
  v("published", VACANCY_INDEXES.published),
  v("updated_since; change detection", VACANCY_INDEXES.updatedSince),
  v("single vacancy by uuid", "uq_vacature_uuid", false),
  {
    service: "practices",
    use: "list order, single practice",
    table: "tbl_praktijk",
    index: "idx_praktijk_crm_ref",
    forced: false,
  },
  {
    service: "practices",
    use: "search (primary copy of the name)",
    table: "tbl_praktijk",
    index: "idx_praktijk_naam",
    forced: false,
  },
  {
    service: "practices",
    use: "search (CRM name)",
    table: "crm_bedrijf",
    index: "idx_crm_naam",
    forced: false,
  },
  {
    service: "practices",
    use: "external_refs.tdm_ids",
    table: "tbl_praktijk_tdm",
    index: "idx_tdm_praktijk",
    forced: false,
  },
  {
    service: "practices",
    use: "change detection (primary rows)",
    table: "tbl_praktijk",
    index: PRACTICE_INDEXES.practiceModified,
    forced: true,
  },
  {
    service: "practices",
    use: "change detection (CRM records)",
    table: "crm_bedrijf",
    index: PRACTICE_INDEXES.crmModified,
    forced: true,
  },
];

/** Table → index → its columns in order (index and column names lower-cased). */
export type IndexMap = Map<string, Map<string, string[]>>;

/** Table → column → its SQL type, as the sandbox schema declares them. */
export function sandboxColumns(): Map<string, Map<string, string>> {
  const tables = new Map<string, Map<string, string>>();
  for (const ddl of legacySchemaStatements()) {
    const table = /^CREATE TABLE (\w+)/.exec(ddl)![1]!;
    const columns = new Map<string, string>();
    for (const m of ddl.matchAll(/^ {2}(\w+) ([A-Z]+)/gm))
      if (!["PRIMARY", "KEY", "UNIQUE"].includes(m[1]!)) columns.set(m[1]!, m[2]!.toLowerCase());
    tables.set(table, columns);
  }
  return tables;
}

/** Every index of the sandbox schema, parsed from its DDL. */
export function sandboxIndexes(): IndexMap {
  const tables: IndexMap = new Map();
  for (const ddl of legacySchemaStatements()) {
    const table = /^CREATE TABLE (\w+)/.exec(ddl)![1]!;
    const indexes = new Map<string, string[]>();
    for (const m of ddl.matchAll(/^ {2}(PRIMARY KEY|(?:UNIQUE )?KEY (\w+)) \(([^)]+)\)/gm))
      indexes.set(
        (m[2] ?? "PRIMARY").toLowerCase(),
        m[3]!.split(",").map((c) => c.trim().toLowerCase()),
      );
    tables.set(table, indexes);
  }
  return tables;
}

/** One row of INDEX_STATISTICS_SQL. */
export interface StatisticsRow {
  table_name: string;
  index_name: string;
  column_name: string | null;
}

/** The indexes of the connection's database, their columns in order. */
export const INDEX_STATISTICS_SQL = `SELECT TABLE_NAME AS table_name, INDEX_NAME AS index_name, COLUMN_NAME AS column_name
FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`;

export function indexMapOf(rows: readonly StatisticsRow[]): IndexMap {
  const tables: IndexMap = new Map();
  for (const row of rows) {
    const table = tables.get(row.table_name) ?? new Map<string, string[]>();
    tables.set(row.table_name, table);
    const index = row.index_name.toLowerCase();
    table.set(index, [...(table.get(index) ?? []), (row.column_name ?? "").toLowerCase()]);
  }
  return tables;
}

/** Whether `actual` begins with every column of `expected`, in order. */
export const leadsWith = (actual: readonly string[], expected: readonly string[]): boolean =>
  expected.every((column, i) => actual[i] === column);

/** Whether a statement may name `index` in a hint (FORCE INDEX). */
export type IndexHint = (index: string) => boolean;

/** Every sandbox index (statements built for the sandbox schema, tests of their text). */
export const EVERY_INDEX: IndexHint = () => true;

/** ` FORCE INDEX (index)` where the hints allow that index, else nothing (plain SQL). */
export const forceIndex = (index: string, hints: IndexHint): string =>
  hints(index) ? ` FORCE INDEX (${index})` : "";

/**
 * The hints a database allows on `tables`: a sandbox index whose name the database has on each of
 * those tables that declares it, beginning with the same columns. An index renamed, dropped or
 * reshaped gets no hint: its statements are plain SQL and the optimizer picks.
 */
export function hintsFor(found: IndexMap, tables: readonly LegacyTable[]): IndexHint {
  const sandbox = sandboxIndexes();
  const allowed = new Set<string>();
  const refused = new Set<string>();
  for (const table of tables)
    for (const [index, columns] of sandbox.get(table) ?? []) {
      const actual = found.get(table)?.get(index);
      if (actual && leadsWith(actual, columns)) allowed.add(index);
      else refused.add(index);
    }
  return (index) => {
    const name = index.toLowerCase();
    return allowed.has(name) && !refused.has(name);
  };
}

/** MySQL's and MariaDB's answer to a hint naming an index the table does not have. */
const ER_KEY_DOES_NOT_EXIST = 1176;

/**
 * The index hints of one source, looked up once from `information_schema` (INDEX_STATISTICS_SQL
 * through `read`, the source's own connection). `prefetch()` at start; a lookup that fails (the
 * database unreachable) is tried again on the next read, which fails as the read would.
 */
export class IndexHints {
  readonly #read: () => Promise<StatisticsRow[]>;
  readonly #tables: readonly LegacyTable[];
  #pending: Promise<IndexHint> | undefined;

  constructor(read: (sql: string) => Promise<StatisticsRow[]>, tables: readonly LegacyTable[]) {
    this.#read = () => read(INDEX_STATISTICS_SQL);
    this.#tables = tables;
  }

  /** Starts the lookup without waiting for it. */
  prefetch(): void {
    this.available().catch(() => undefined);
  }

  /**
   * `read` with the current hints. An index dropped since the lookup fails it with
   * ER_KEY_DOES_NOT_EXIST: the indexes are looked up again and `read` runs once more.
   */
  async run<T>(read: (hints: IndexHint) => Promise<T>): Promise<T> {
    const hints = await this.available();
    try {
      return await read(hints);
    } catch (err) {
      if ((err as { errno?: unknown }).errno !== ER_KEY_DOES_NOT_EXIST) throw err;
      // Unless a concurrent read has looked them up again already.
      if ((await this.#pending?.catch(() => undefined)) === hints) this.#pending = undefined;
      return read(await this.available());
    }
  }

  available(): Promise<IndexHint> {
    this.#pending ??= this.#read().then(
      (rows) => hintsFor(indexMapOf(rows), this.#tables),
      (err: unknown) => {
        this.#pending = undefined;
        throw err;
      },
    );
    return this.#pending;
  }
}

const NOT_AN_ALIAS = new Set(["on", "where", "join", "left", "force", "straight_join", "order"]);

/**
 * The legacy columns a statement names, as `table.column`: `alias.column` through the aliases of
 * its FROM and JOIN clauses, and a bare column where exactly one of its tables has it (a bare
 * name two of them have, or an `AS` name, is skipped). The sources' tests compare the union over
 * their statements with LEGACY_READS.
 */
export function columnsIn(sql: string): Set<string> {
  const schema = sandboxColumns();
  const text = sql.replace(/'(?:[^'\\]|\\.)*'/g, "''");
  const aliases = new Map<string, string>();
  for (const m of text.matchAll(/\b(?:FROM|JOIN)\s+(\w+)(?:\s+(\w+))?/gi)) {
    const table = m[1]!;
    if (!schema.has(table)) continue;
    aliases.set(table, table);
    const alias = m[2];
    if (alias && !NOT_AN_ALIAS.has(alias.toLowerCase())) aliases.set(alias, table);
  }
  const tables = [...new Set(aliases.values())];
  const found = new Set<string>();
  for (const m of text.matchAll(/\b(\w+)\.(\w+)\b/g)) {
    const table = aliases.get(m[1]!);
    if (table) found.add(`${table}.${m[2]}`);
  }
  for (const m of text.matchAll(/(?<![.\w])(\w+)(?![.\w])/g)) {
    if (/\bAS\s+$/i.test(text.slice(Math.max(0, m.index - 4), m.index))) continue;
    const owners = tables.filter((t) => schema.get(t)?.has(m[1]!));
    if (owners.length === 1) found.add(`${owners[0]}.${m[1]}`);
  }
  return found;
}
