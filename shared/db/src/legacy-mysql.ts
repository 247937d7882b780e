import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Meter,
} from "@opentelemetry/api";
import {
  createPool,
  type Pool,
  type PoolConnection,
  type PoolOptions,
  type RowDataPacket,
} from "mysql2";
import { SourceUnavailableError } from "@svc/errors";

export interface LegacyDbOptions {
  url: string;
  /** Bound on connecting (TCP + handshake); an unreachable or paused server fails within it. */
  connectTimeoutMs?: number;
  /** Bound on each query on an established connection. */
  queryTimeoutMs?: number;
  connectionLimit?: number;
  /** The process's Meter: `legacy.source.unavailable` counts queries that found it unreachable. */
  meter?: Meter;
}

/** Read-only access to the legacy primary database (MySQL/MariaDB); the services never write it. */
export interface LegacyDb {
  query<T>(sql: string, params?: ReadonlyArray<unknown>): Promise<T[]>;
  ping(): Promise<void>;
  /**
   * Opens every connection of the pool at once (the pool otherwise opens them one request at a
   * time), each holding the session settings; resolves with how many it opened.
   */
  openConnections(): Promise<number>;
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

/** A bounded label for the failure: the driver's code when it is a known one. */
function errorType(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && CONNECTION_FAILURES.has(code) ? code : "other";
}

// Our own span rather than the mysql2 instrumentation's, which costs several times more per query
// (shimmer-wrapped callbacks, values formatted into the statement); semantic conventions for
// database client spans. Why: docs/decisions/tracing-cost.md.
const tracer = trace.getTracer("@svc/db");

function connectionAttributes(url: string): Attributes {
  const u = new URL(url);
  return {
    "db.system.name": "mysql",
    "db.namespace": decodeURIComponent(u.pathname.replace(/^\//, "")),
    "server.address": u.hostname,
    "server.port": Number(u.port || 3306),
  };
}

/** `SELECT legacy_sandbox`: the operation and the database, low cardinality. */
function spanName(sql: string, attributes: Attributes): string {
  const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? "QUERY";
  return `${operation} ${String(attributes["db.namespace"])}`;
}

/** How many prepared statements each pooled connection keeps (an LRU; see createLegacyDb). */
export const PREPARED_STATEMENTS_PER_CONNECTION = 64;

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
    // Reads are server-side prepared statements (execute(), binary protocol), each prepared once
    // per connection and kept in a small LRU (mysql2 allocates it at full size up front). An
    // evicted statement is closed on the server, whose max_prepared_stmt_count is one budget for
    // all its clients; a read that finds it spent goes as text (runQuery).
    // Why: docs/decisions/legacy-prepared-statements.md.
    maxPreparedStatements: PREPARED_STATEMENTS_PER_CONNECTION,
  };
  // mysql2's callback API, wrapped here once: its promise API captures a stack trace for every
  // call (getConnection and query).
  const pool: Pool = createPool(poolOptions);
  const unavailable = options.meter?.createCounter("legacy.source.unavailable", {
    unit: "{error}",
    description:
      "Legacy database queries that failed because the source could not be reached (503 LEGACY_SOURCE_UNAVAILABLE)",
  });
  // Belt and braces on top of a SELECT-only account: every session refuses writes.
  pool.on("connection", (conn) => {
    conn.query("SET SESSION TRANSACTION READ ONLY");
  });

  const spanAttributes = connectionAttributes(options.url);

  // Not pool.query(): it puts a connection whose query timed out back into the pool, and the next
  // queries queue behind the hung one, their own timeout not yet running (it starts when a query
  // starts). So a connection whose query failed at the connection level is destroyed, and taking
  // one from the pool is bounded too (connect timeout + query timeout: a connection may be busy
  // that long).
  const acquireTimeout = (options.connectTimeoutMs ?? 2_000) + queryTimeout;
  async function acquire(): Promise<PoolConnection> {
    const pending = new Promise<PoolConnection>((resolve, reject) =>
      pool.getConnection((err, conn) => (err ? reject(err) : resolve(conn))),
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            Object.assign(
              new Error(
                `connect ETIMEDOUT: no legacy database connection within ${acquireTimeout} ms`,
              ),
              { code: "ETIMEDOUT" },
            ),
          ),
        acquireTimeout,
      );
    });
    try {
      return await Promise.race([pending, late]);
    } catch (err) {
      // A connection that still arrives goes back to the pool unused.
      void pending.then(
        (conn) => conn.release(),
        () => undefined,
      );
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }
  async function runQuery(sql: string, params: ReadonlyArray<unknown>): Promise<RowDataPacket[]> {
    const conn = await acquire();
    try {
      const rows = await new Promise<RowDataPacket[]>((resolve, reject) => {
        // mysql2's own timeout covers the execution only, not the PREPARE before a statement's
        // first execution on this connection: this one bounds both (the connection is destroyed).
        const timer = setTimeout(() => {
          conn.destroy();
          reject(
            Object.assign(
              new Error(`Query inactivity timeout: no answer within ${queryTimeout} ms`),
              { code: "PROTOCOL_SEQUENCE_TIMEOUT", fatal: true },
            ),
          );
        }, queryTimeout);
        const options = { sql, values: params as unknown[] };
        const send = (prepared: boolean) => {
          const done = (err: Error | null, result: RowDataPacket[]) => {
            // The server's prepared statements are all taken (max_prepared_stmt_count is one
            // budget for every client of the legacy database): this read goes as text instead.
            if (
              err &&
              prepared &&
              (err as { code?: string }).code === "ER_MAX_PREPARED_STMT_COUNT_REACHED"
            )
              return send(false);
            clearTimeout(timer);
            if (err) reject(err);
            else resolve(result);
          };
          if (prepared) conn.execute<RowDataPacket[]>(options, done);
          else conn.query<RowDataPacket[]>(options, done);
        };
        // A list parameter (`IN (?)` with an array) is expanded into a value list by the text
        // protocol only; a prepared statement would bind it as one JSON value.
        send(!params.some(Array.isArray));
      });
      conn.release();
      return rows;
    } catch (err) {
      if (isLegacyConnectionFailure(err)) conn.destroy();
      else conn.release();
      throw err;
    }
  }

  async function query<T>(sql: string, params: ReadonlyArray<unknown> = []): Promise<T[]> {
    // A CLIENT span per query inside a traced operation (none for a readiness ping): the statement
    // with its placeholders, never the values.
    const parent = context.active();
    const span = trace.getSpan(parent)
      ? tracer.startSpan(
          spanName(sql, spanAttributes),
          { kind: SpanKind.CLIENT, attributes: { ...spanAttributes, "db.query.text": sql } },
          parent,
        )
      : undefined;
    try {
      return (await runQuery(sql, params)) as T[];
    } catch (err) {
      span?.setStatus({ code: SpanStatusCode.ERROR });
      span?.setAttribute("error.type", errorType(err));
      if (isLegacyConnectionFailure(err)) {
        unavailable?.add(1, { "error.type": errorType(err) });
        throw new SourceUnavailableError(err);
      }
      throw err;
    } finally {
      span?.end();
    }
  }

  return {
    query,
    ping: async () => {
      await query("SELECT 1");
    },
    openConnections: async () => {
      const held: PoolConnection[] = [];
      try {
        const limit = poolOptions.connectionLimit ?? 10;
        const opened = await Promise.allSettled(Array.from({ length: limit }, () => acquire()));
        for (const o of opened) if (o.status === "fulfilled") held.push(o.value);
        const failed = opened.find((o) => o.status === "rejected");
        if (failed) throw new SourceUnavailableError(failed.reason);
        return held.length;
      } finally {
        for (const conn of held) conn.release();
      }
    },
    // A connection that fails while quitting (its handshake hung, the server went away) is closed
    // all the same: only another kind of failure is one the caller should hear of.
    close: () =>
      new Promise<void>((resolve, reject) =>
        pool.end((err) => (err && !isLegacyConnectionFailure(err) ? reject(err) : resolve())),
      ),
  };
}
