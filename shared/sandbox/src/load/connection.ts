import { createConnection } from "mysql2/promise";
import type { Connection } from "mysql2/promise";

/**
 * One server connection from a `mysql://user:password@host:port` URL (any path is ignored: the
 * database is always named explicitly). Dates come back as strings because the legacy DATETIMEs are
 * Brussels wall-clock values, which a JS Date in the process's zone would silently shift.
 */
export async function openServerConnection(url: string): Promise<Connection> {
  const parsed = new URL(url);
  if (parsed.protocol !== "mysql:" && parsed.protocol !== "mariadb:")
    throw new RangeError(`expected a mysql:// URL, got ${parsed.protocol}`);
  return createConnection({
    host: parsed.hostname || "127.0.0.1",
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username) || "root",
    password: decodeURIComponent(parsed.password),
    charset: "UTF8MB4_UNICODE_CI",
    dateStrings: true,
    supportBigNumbers: true,
    multipleStatements: false,
  });
}
