/**
 * Whether a legacy primary database has what the services read (reads.ts): each column with a
 * type the mappers handle, the indexes the list statements force, and an account that can read
 * and cannot write. Reads `information_schema` and SHOW GRANTS, and proves each table readable
 * with a `SELECT … LIMIT 0` of exactly the columns read; it never writes.
 */
import type { Connection, RowDataPacket } from "mysql2/promise";
import {
  INDEX_STATISTICS_SQL,
  INDEX_USES,
  indexMapOf,
  KIND_TYPES,
  leadsWith,
  LEGACY_READS,
  sandboxIndexes,
  type IndexMap,
  type LegacyReader,
  type StatisticsRow,
} from "../reads.ts";

/** `fail`: a request would break (or the account may write); `warn`: slower or looser, not broken. */
export type Verdict = "ok" | "warn" | "fail";

export interface ColumnFinding {
  service: LegacyReader;
  field: string;
  column: string;
  verdict: Verdict;
  found: string;
}

export interface IndexFinding {
  service: LegacyReader;
  use: string;
  index: string;
  verdict: Verdict;
  found: string;
}

export interface AccountFinding {
  verdict: Verdict;
  found: string;
}

export interface CheckReport {
  server: string;
  database: string;
  columns: ColumnFinding[];
  indexes: IndexFinding[];
  account: AccountFinding[];
}

/** 0: nothing would break; 1: something would (or the account may write). */
export const exitCodeOf = (report: CheckReport): 0 | 1 =>
  [...report.columns, ...report.indexes, ...report.account].some((f) => f.verdict === "fail")
    ? 1
    : 0;

interface ColumnRow {
  table_name: string;
  column_name: string;
  data_type: string;
  collation_name: string | null;
}

async function rows<T>(connection: Connection, sql: string, params: unknown[] = []): Promise<T[]> {
  const [result] = await connection.query<RowDataPacket[]>(sql, params);
  return result as T[];
}

function columnFindings(found: readonly ColumnRow[]): ColumnFinding[] {
  const byName = new Map(found.map((c) => [`${c.table_name}.${c.column_name}`.toLowerCase(), c]));
  return LEGACY_READS.flatMap((read) =>
    read.columns.map((c): ColumnFinding => {
      const column = `${c.table}.${c.column}`;
      const base = { service: read.service, field: read.field, column };
      const actual = byName.get(column.toLowerCase());
      if (!actual) {
        const tableExists = found.some((r) => r.table_name.toLowerCase() === c.table);
        return {
          ...base,
          verdict: "fail",
          found: tableExists ? "column missing" : "table missing (or not visible to this account)",
        };
      }
      const type = actual.data_type.toLowerCase();
      if (!KIND_TYPES[c.kind].includes(type))
        return {
          ...base,
          verdict: "fail",
          found: `${type}, expected ${c.kind} (${KIND_TYPES[c.kind].join("/")})`,
        };
      if (c.binary && !(actual.collation_name ?? "").endsWith("_bin"))
        return {
          ...base,
          verdict: "warn",
          found: `${type} ${actual.collation_name ?? ""}: ids compare case-insensitively, expected a _bin collation`,
        };
      return { ...base, verdict: "ok", found: type };
    }),
  );
}

function indexFindings(found: IndexMap): IndexFinding[] {
  const sandbox = sandboxIndexes();
  return INDEX_USES.map((use): IndexFinding => {
    const columns = sandbox.get(use.table)?.get(use.index.toLowerCase()) ?? [];
    const base = {
      service: use.service,
      use: use.use,
      index: `${use.table}.${use.index} (${columns.join(", ")})`,
    };
    const indexes = found.get(use.table) ?? new Map<string, string[]>();
    const named = indexes.get(use.index.toLowerCase());
    if (named && leadsWith(named, columns))
      return { ...base, verdict: "ok", found: use.forced ? "present, forced" : "present" };
    const alike = [...indexes].find(([, c]) => leadsWith(c, columns))?.[0];
    const why = named ? `${use.index} is (${named.join(", ")})` : `no ${use.index}`;
    const plan = use.forced ? "plain SQL, no hint" : "the optimizer picks";
    return {
      ...base,
      verdict: "warn",
      found: alike
        ? `${why}; ${plan}, ${alike} has those columns`
        : `${why}; ${plan}, no index leads with those columns: slower reads`,
    };
  });
}

// Privileges that read or only show; anything else on the database (or global) can change it.
const READ_PRIVILEGES = new Set([
  "SELECT",
  "USAGE",
  "SHOW VIEW",
  "SHOW DATABASES",
  "PROCESS",
  "REPLICATION CLIENT",
  "BINLOG MONITOR",
  "SLAVE MONITOR",
  "REPLICA MONITOR",
]);

/** The privileges of one GRANT line, with column lists dropped: `SELECT (a, b)` → `SELECT`. */
function privilegesOf(list: string): string[] {
  return list
    .replace(/\([^)]*\)/g, "")
    .split(",")
    .map((p) => p.trim().toUpperCase())
    .filter((p) => p !== "");
}

/** `*`, a name or a LIKE pattern (`legacy\_%`) of a grant's database part, against `database`. */
function databaseMatches(pattern: string, database: string): boolean {
  const name = pattern.replace(/^`|`$/g, "").replace(/``/g, "`");
  if (name === "*") return true;
  let regex = "";
  for (let i = 0; i < name.length; i++) {
    const ch = name[i]!;
    if (ch === "\\" && i + 1 < name.length)
      regex += name[++i]!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    else if (ch === "%") regex += ".*";
    else if (ch === "_") regex += ".";
    else regex += ch.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${regex}$`, "i").test(database);
}

/**
 * The account from SHOW GRANTS: which privileges it holds on the database beyond reading. Only
 * privilege names and scopes are reported, never a line (it may carry a password hash).
 */
export function accountFindings(grants: readonly string[], database: string): AccountFinding[] {
  const writes: string[] = [];
  const roles: string[] = [];
  let canSelect = false;
  for (const line of grants) {
    const grant =
      /^GRANT (.+?) ON (?:(?:TABLE|FUNCTION|PROCEDURE|PACKAGE(?: BODY)?) )?(\S+) TO /.exec(line);
    if (!grant) {
      const role = /^GRANT (\S+) TO /.exec(line);
      if (role) roles.push(role[1]!);
      continue;
    }
    const scope = grant[2]!;
    const dbPart = /^(`(?:[^`]|``)*`|[^.]+)\./.exec(scope)?.[1] ?? scope;
    // A user scope (PROXY ON user@host) is no database's: kept, as it is more than reading.
    if (!scope.includes("@") && !databaseMatches(dbPart, database)) continue;
    for (const privilege of privilegesOf(grant[1]!)) {
      if (["SELECT", "ALL", "ALL PRIVILEGES"].includes(privilege)) canSelect = true;
      if (!READ_PRIVILEGES.has(privilege)) writes.push(`${privilege} on ${scope}`);
    }
  }
  const findings: AccountFinding[] = [];
  if (writes.length > 0)
    findings.push({
      verdict: "fail",
      found: `not read-only: ${[...new Set(writes)].join(", ")}`,
    });
  else findings.push({ verdict: "ok", found: "read-only (no privilege beyond reading)" });
  if (!canSelect)
    findings.push({ verdict: "fail", found: `no SELECT on ${database} or its tables` });
  for (const role of roles)
    findings.push({
      verdict: "warn",
      found: `role ${role} granted: its privileges are not inspected, grant none that write`,
    });
  return findings;
}

/** Each table read, with exactly the columns read, no row fetched: proves SELECT works. */
async function readProbes(connection: Connection): Promise<AccountFinding[]> {
  const tables = new Map<string, Set<string>>();
  for (const read of LEGACY_READS)
    for (const c of read.columns)
      tables.set(c.table, (tables.get(c.table) ?? new Set()).add(c.column));
  const findings: AccountFinding[] = [];
  for (const [table, columns] of tables) {
    const list = [...columns].map((c) => connection.escapeId(c)).join(", ");
    try {
      await connection.query(`SELECT ${list} FROM ${connection.escapeId(table)} LIMIT 0`);
    } catch (error) {
      const code = (error as { code?: string }).code ?? "error";
      findings.push({ verdict: "fail", found: `cannot read ${table}: ${code}` });
    }
  }
  return findings;
}

/** The check over a connection to the database (its default database set; nothing is written). */
export async function checkLegacyDatabase(connection: Connection): Promise<CheckReport> {
  // Every statement of this session refuses to write, whatever the account may do.
  await connection.query("SET SESSION TRANSACTION READ ONLY");
  const [session] = await rows<{ database: string | null; version: string }>(
    connection,
    "SELECT DATABASE() AS `database`, VERSION() AS version",
  );
  const database = session?.database;
  const version = session?.version ?? "unknown server";
  if (!database) throw new RangeError("the URL names no database (mysql://…/<database>)");
  const columns = await rows<ColumnRow>(
    connection,
    `SELECT TABLE_NAME AS table_name, COLUMN_NAME AS column_name, DATA_TYPE AS data_type, COLLATION_NAME AS collation_name
     FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()`,
  );
  const statistics = await rows<StatisticsRow>(connection, INDEX_STATISTICS_SQL);
  const grants = (await rows<Record<string, string>>(connection, "SHOW GRANTS")).map(
    (row) => Object.values(row)[0] ?? "",
  );
  const columnReport = columnFindings(columns);
  return {
    server: version,
    database,
    columns: columnReport,
    indexes: indexFindings(indexMapOf(statistics)),
    account: [
      ...accountFindings(grants, database),
      // A missing column already fails above; the probes show what the account itself cannot read.
      ...(columnReport.some((c) => c.verdict === "fail") ? [] : await readProbes(connection)),
    ],
  };
}

const MARK: Record<Verdict, string> = { ok: "ok", warn: "WARN", fail: "FAIL" };

function table(headers: string[], lines: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const row = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [row(headers), ...lines.map(row)].join("\n");
}

/** The report as readable tables, then one summary line. */
export function formatReport(report: CheckReport, target: string): string {
  const failures = [...report.columns, ...report.indexes, ...report.account].filter(
    (f) => f.verdict === "fail",
  ).length;
  const warnings = [...report.columns, ...report.indexes, ...report.account].filter(
    (f) => f.verdict === "warn",
  ).length;
  return [
    `legacy:check ${target} (${report.server})`,
    "",
    "Columns, per canonical field",
    table(
      ["", "service", "field", "column", "found"],
      report.columns.map((c) => [MARK[c.verdict], c.service, c.field, c.column, c.found]),
    ),
    "",
    "Indexes of the list filters",
    table(
      ["", "service", "used for", "index (columns)", "found"],
      report.indexes.map((i) => [MARK[i.verdict], i.service, i.use, i.index, i.found]),
    ),
    "",
    "Account",
    table(
      ["", "found"],
      report.account.map((a) => [MARK[a.verdict], a.found]),
    ),
    "",
    `${failures} failing, ${warnings} warning${warnings === 1 ? "" : "s"}: exit ${exitCodeOf(report)}`,
  ].join("\n");
}
