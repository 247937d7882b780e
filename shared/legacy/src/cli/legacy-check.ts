/**
 * npm run legacy:check -- --url mysql://user:password@host:3306/database; without --url it checks
 * LEGACY_DATABASE_URL (the chart's `helm test` hook sets it from the legacy Secret).
 *
 * Whether that database has what practices and vacancies read: each column per canonical field
 * with a compatible type, the indexes the list filters use, and a read-only account. Reads only.
 * Exit codes: 0 nothing would break (warnings allowed), 1 something would break a request or the
 * account can write, 2 usage error, 3 the database could not be reached or inspected.
 */
import { runCli, UsageError, type CommandSpec, type Invocation } from "@svc/cli";
import { createConnection } from "mysql2/promise";
import { checkLegacyDatabase, exitCodeOf, formatReport } from "../check/legacy-check.ts";
import { checkTargetUrl, printable } from "./config.ts";

const SPEC: CommandSpec = {
  name: "npm run legacy:check --",
  summary:
    "Checks that a legacy database has what practices and vacancies read (columns, indexes) and that the account only reads. Reads only.",
  options: {
    url: {
      type: "string",
      value: "<mysql://user:password@host:3306/database>",
      secret: true,
      description: "the legacy database to check (default: $LEGACY_DATABASE_URL)",
    },
    json: { type: "boolean", description: "print the findings as JSON (shape below)" },
  },
  secretEnv: ["LEGACY_DATABASE_URL"],
  json: [
    '{"target": "mysql://user@host:3306/database", "server", "database",',
    ' "columns": [{"service", "field", "column", "verdict": "ok|warn|fail", "found"}],',
    ' "indexes": [{"service", "use", "index", "verdict", "found"}],',
    ' "account": [{"verdict", "found"}]}',
  ],
  examples: ["npm run legacy:check -- --url mysql://reader:password@legacy-db:3306/crm --json"],
  notes: [
    "Exit codes: 0 nothing would break, 1 something would (or the account can write), 2 usage, 3 unreachable.",
  ],
};

function target(given: string | undefined): URL {
  const value = given ?? checkTargetUrl();
  if (!value) throw new UsageError("no --url and no LEGACY_DATABASE_URL");
  const url = URL.parse(value);
  if (!url) throw new UsageError("the URL does not parse");
  if (url.protocol !== "mysql:" && url.protocol !== "mariadb:")
    throw new UsageError(`expected a mysql:// URL, got ${url.protocol}`);
  if (url.pathname.replace(/^\//, "") === "")
    throw new UsageError("the URL names no database (mysql://…/<database>)");
  return url;
}

async function main(call: Invocation): Promise<number> {
  const url = target(call.string("url"));
  const { io } = call;
  const printed = printable(url);
  let connection;
  try {
    const forDriver = new URL(url);
    if (forDriver.protocol === "mariadb:") forDriver.protocol = "mysql:";
    connection = await createConnection({
      uri: forDriver.toString(),
      connectTimeout: 10_000,
      multipleStatements: false,
    });
  } catch (error) {
    const e = error as { code?: string; message?: string };
    io.err(`cannot connect to ${printed}: ${e.code ?? ""} ${e.message ?? ""}`.trim());
    return 3;
  }
  try {
    const report = await checkLegacyDatabase(connection);
    io.out(
      call.flag("json")
        ? JSON.stringify({ target: printed, ...report })
        : formatReport(report, printed),
    );
    return exitCodeOf(report);
  } catch (error) {
    const e = error as { code?: string; message?: string };
    io.err(`cannot inspect ${printed}: ${e.code ?? ""} ${e.message ?? ""}`.trim());
    return 3;
  } finally {
    await connection.end().catch(() => undefined);
  }
}

process.exitCode = await runCli(SPEC, main);
