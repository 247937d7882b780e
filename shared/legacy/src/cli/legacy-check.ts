/**
 * npm run legacy:check -- --url mysql://user:password@host:3306/database; without --url it checks
 * LEGACY_DATABASE_URL (the chart's `helm test` hook sets it from the legacy Secret).
 *
 * Whether that database has what practices and vacancies read: each column per canonical field
 * with a compatible type, the indexes the list filters use, and a read-only account. Reads only.
 * Exit codes: 0 nothing would break (warnings allowed), 1 something would break a request or the
 * account can write, 2 usage error, 3 the database could not be reached or inspected.
 */
import { parseArgs } from "node:util";
import { createConnection } from "mysql2/promise";
import { checkLegacyDatabase, exitCodeOf, formatReport } from "../check/legacy-check.ts";
import { checkTargetUrl, printable } from "./config.ts";

const USAGE = `usage: npm run legacy:check -- [--url mysql://user:password@host:3306/database]
  --url URL   the legacy database to check (default: LEGACY_DATABASE_URL)
exit: 0 nothing would break, 1 something would (or the account can write), 2 usage, 3 unreachable`;

function parse(): URL | null {
  const { values } = parseArgs({
    options: {
      url: { type: "string", default: checkTargetUrl() },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) return null;
  if (!values.url) throw new RangeError("no --url and no LEGACY_DATABASE_URL");
  const url = new URL(values.url);
  if (url.protocol !== "mysql:" && url.protocol !== "mariadb:")
    throw new RangeError(`expected a mysql:// URL, got ${url.protocol}`);
  if (url.pathname.replace(/^\//, "") === "")
    throw new RangeError("the URL names no database (mysql://…/<database>)");
  return url;
}

async function main(): Promise<number> {
  let url;
  try {
    url = parse();
  } catch (error) {
    // Only our own messages: a URL parser's message could quote the URL and its password.
    console.error(`${error instanceof RangeError ? error.message : "invalid arguments"}\n${USAGE}`);
    return 2;
  }
  if (!url) {
    console.log(USAGE);
    return 0;
  }
  const target = printable(url);
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
    console.error(`cannot connect to ${target}: ${e.code ?? ""} ${e.message ?? ""}`.trim());
    return 3;
  }
  try {
    const report = await checkLegacyDatabase(connection);
    console.log(formatReport(report, target));
    return exitCodeOf(report);
  } catch (error) {
    const e = error as { code?: string; message?: string };
    console.error(`cannot inspect ${target}: ${e.code ?? ""} ${e.message ?? ""}`.trim());
    return 3;
  } finally {
    await connection.end().catch(() => undefined);
  }
}

process.exitCode = await main();
