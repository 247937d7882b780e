import { createPool, type Pool, type PoolOptions, type RowDataPacket } from "mysql2/promise";
import { SourceUnavailableError } from "@svc/http";

export interface LegacyDbOptions {
  url: string;
  /** Bound on connecting (TCP + handshake); an unreachable or paused server fails within it. */
  connectTimeoutMs?: number;
  /** Bound on each query on an established connection. */
  queryTimeoutMs?: number;
  connectionLimit?: number;
}

/** Read-only access to the legacy primary database (MySQL/MariaDB), which the service never writes. */
export interface LegacyDb {
  query<T>(sql: string, params?: ReadonlyArray<unknown>): Promise<T[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

const CONNECTION_FAILURES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "PROTOCOL_CONNECTION_LOST",
  "PROTOCOL_SEQUENCE_TIMEOUT",
  "ER_CON_COUNT_ERROR",
  "ER_SERVER_SHUTDOWN",
  "ER_ACCESS_DENIED_ERROR",
  "ER_BAD_DB_ERROR",
]);

/** Connection-level failures become 503 LEGACY_SOURCE_UNAVAILABLE; SQL mistakes stay 500s. */
export function isLegacyConnectionFailure(err: unknown): boolean {
  const e = err as { code?: string; fatal?: boolean; message?: string } | undefined;
  if (!e) return false;
  if (e.fatal === true) return true;
  if (e.code && CONNECTION_FAILURES.has(e.code)) return true;
  return /connect ETIMEDOUT|Pool is closed|Connection lost/i.test(e.message ?? "");
}

export function createLegacyDb(options: LegacyDbOptions): LegacyDb {
  const queryTimeout = options.queryTimeoutMs ?? 5_000;
  const poolOptions: PoolOptions = {
    uri: options.url,
    connectTimeout: options.connectTimeoutMs ?? 2_000,
    connectionLimit: options.connectionLimit ?? 10,
    maxIdle: options.connectionLimit ?? 10,
    idleTimeout: 60_000,
    enableKeepAlive: true,
    // DATETIME columns hold Europe/Brussels wall-clock time; the mappers convert them with the
    // right offset themselves, so the driver must not reinterpret them in the server's zone.
    dateStrings: true,
    decimalNumbers: true,
    supportBigNumbers: true,
    multipleStatements: false,
    charset: "utf8mb4",
  };
  const pool: Pool = createPool(poolOptions);
  // Belt and braces on top of a SELECT-only account: every session refuses writes.
  pool.pool.on("connection", (conn) => {
    conn.query("SET SESSION TRANSACTION READ ONLY");
  });

  async function query<T>(sql: string, params: ReadonlyArray<unknown> = []): Promise<T[]> {
    try {
      const [rows] = await pool.query<RowDataPacket[]>({ sql, timeout: queryTimeout, values: params as unknown[] });
      return rows as T[];
    } catch (err) {
      if (isLegacyConnectionFailure(err)) throw new SourceUnavailableError(err);
      throw err;
    }
  }

  return {
    query,
    ping: async () => {
      await query("SELECT 1");
    },
    close: () => pool.end(),
  };
}
