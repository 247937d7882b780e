import { sql } from "drizzle-orm";
import type pg from "pg";
import { LeadershipLostError } from "./leader.ts";
import type { Fence, LeaderElector, PgExecutor } from "./leader.ts";
import type { Logger } from "@svc/logging";
import { sleep } from "@svc/time";

export type PgAdvisoryLockElectorOptions = {
  /** Lends the dedicated lock session (held for the whole leadership) and campaign attempts. */
  pool: pg.Pool;
  /** What is being led, e.g. "change-detector:vacancies"; hashed to the 64-bit lock key. */
  name: string;
  logger: Logger;
  /**
   * The longest single wait in the lock's queue (lock_timeout) before the campaign checks it
   * should go on, and the pause after a failed attempt or a term; default 2 s.
   */
  retryEveryMs?: number;
  /** How often the leader checks its lock session (the server's pause in a check); default 1 s. */
  checkEveryMs?: number;
  /**
   * A check answered later than its pause plus this (a frozen connection) counts as a lost
   * session; default 2 s.
   */
  checkTimeoutMs?: number;
  /**
   * The server ends the lock session when it hears no check for this long (idle_session_timeout,
   * PostgreSQL 14+), freeing the lock for a peer when this process froze or was cut off; without
   * it the server would wait for TCP keepalive (hours by default). Default max(5 s, 5 checks).
   */
  sessionIdleTimeoutMs?: number;
};

/** FNV-1a, 64-bit: a stable advisory-lock key per name. */
export function advisoryLockKey(name: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(`leader:${name}`))
    h = BigInt.asUintN(64, (h ^ BigInt(byte)) * 0x100000001b3n);
  return BigInt.asIntN(64, h);
}

/**
 * Leadership = holding a session-level advisory lock on one dedicated connection. A candidate
 * waits in the server's queue for the lock (pg_advisory_lock) on its own session, so the lock
 * passes to the longest-waiting peer the moment it is freed, before a restarted old leader can
 * queue again (docs/decisions/local-replicas-and-leader-failover.md). The lock lives
 * exactly as long as that session: if the connection breaks (or PostgreSQL restarts), the server
 * frees the lock and this process aborts its task at once (client error) or within
 * checkEveryMs + checkTimeoutMs (a silent connection). A peer can only win after the server has
 * ended the old session, and the fence checks in each batch transaction that the lock is still
 * held by this process's session, so a stale leader's in-flight batch cannot commit.
 */
export class PgAdvisoryLockElector implements LeaderElector {
  readonly #o: Required<PgAdvisoryLockElectorOptions>;
  readonly #key: bigint;
  #leading = false;

  constructor(options: PgAdvisoryLockElectorOptions) {
    const checkEveryMs = options.checkEveryMs ?? 1_000;
    this.#o = {
      retryEveryMs: 2_000,
      checkTimeoutMs: 2_000,
      sessionIdleTimeoutMs: Math.max(5_000, 5 * checkEveryMs),
      ...options,
      checkEveryMs,
    };
    this.#key = advisoryLockKey(options.name);
  }

  isLeader(): boolean {
    return this.#leading;
  }

  async run(
    task: (signal: AbortSignal, fence: Fence) => Promise<void>,
    stop: AbortSignal,
  ): Promise<void> {
    while (!stop.aborted) {
      const session = await this.#campaign(stop);
      if (session) await this.#lead(session, task, stop);
      await sleep(this.#o.retryEveryMs, stop);
    }
  }

  /** Waits in the lock's queue on one session until it wins, stop comes, or the session fails. */
  async #campaign(stop: AbortSignal): Promise<LockSession | null> {
    let client: pg.PoolClient;
    try {
      client = await this.#o.pool.connect();
    } catch (err) {
      this.#o.logger.warn({ err, lock: this.#o.name }, "leader election: database unreachable");
      return null;
    }
    const session = new LockSession(client, this.#key);
    // A wait in progress ends with its connection: the server drops the session from the queue.
    const onStop = () => session.destroy();
    stop.addEventListener("abort", onStop, { once: true });
    try {
      await session.configureWait(this.#o.retryEveryMs, this.#o.sessionIdleTimeoutMs);
      while (!stop.aborted) {
        if (await session.waitForLock(this.#o.retryEveryMs + this.#o.checkTimeoutMs))
          return session;
      }
      await session.resetAndRelease();
    } catch (err) {
      if (!stop.aborted)
        this.#o.logger.warn({ err, lock: this.#o.name }, "leader election: lock attempt failed");
      session.destroy();
    } finally {
      stop.removeEventListener("abort", onStop);
    }
    return null;
  }

  async #lead(
    session: LockSession,
    task: (signal: AbortSignal, fence: Fence) => Promise<void>,
    stop: AbortSignal,
  ): Promise<void> {
    const term = new AbortController();
    const onStop = () => term.abort(new LeadershipLostError("stopping"));
    stop.addEventListener("abort", onStop, { once: true });
    if (stop.aborted) onStop(); // an attempt in flight when stop came won: lead no further
    session.onLost = (cause) => term.abort(new LeadershipLostError("lock session lost", { cause }));
    const watching = this.#watch(session, term);
    this.#leading = true;
    this.#o.logger.info({ lock: this.#o.name, pid: session.pid }, "leadership acquired");
    try {
      await task(term.signal, (db) => this.#fence(db, session));
    } catch (err) {
      if (!term.signal.aborted)
        this.#o.logger.error({ err, lock: this.#o.name }, "leader task failed; handing over");
    } finally {
      this.#leading = false;
      if (!term.signal.aborted) term.abort(new LeadershipLostError("task ended"));
      stop.removeEventListener("abort", onStop);
      await watching;
      await session.unlockAndRelease();
      this.#o.logger.info(
        { lock: this.#o.name, reason: String((term.signal.reason as Error).message) },
        "leadership released",
      );
    }
  }

  /**
   * Heartbeat on the lock session: a broken or frozen connection ends the leadership. The pause
   * between checks runs in the server, so the session is idle only while this process handles an
   * answer: a process busy with a long pass is not taken for a frozen one.
   */
  async #watch(session: LockSession, term: AbortController): Promise<void> {
    while (!term.signal.aborted) {
      try {
        await session.ping(this.#o.checkEveryMs, this.#o.checkTimeoutMs);
      } catch (err) {
        this.#o.logger.warn({ err, lock: this.#o.name }, "leader lock session lost; aborting");
        session.lost(err);
      }
    }
  }

  async #fence(db: PgExecutor, session: LockSession): Promise<void> {
    if (session.isLost) throw new LeadershipLostError("lock session lost");
    const u = BigInt.asUintN(64, this.#key);
    // A bigint advisory key shows in pg_locks as classid = high half, objid = low half, objsubid 1.
    const result = (await db.execute(sql`
      SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND classid = ${String(u >> 32n)}::oid AND objid = ${String(u & 0xffffffffn)}::oid AND pid = ${session.pid}`)) as unknown as {
      rows: unknown[];
    };
    if (result.rows.length === 0)
      throw new LeadershipLostError("advisory lock no longer held by this process");
  }
}

/** The dedicated connection that holds the lock. */
class LockSession {
  readonly #client: pg.PoolClient;
  readonly #key: bigint;
  pid = 0;
  isLost = false;
  #returned = false;
  onLost: (cause: unknown) => void = () => {};

  constructor(client: pg.PoolClient, key: bigint) {
    this.#client = client;
    this.#key = key;
    // A checked-out client whose socket dies emits 'error'; that is exactly "leadership lost".
    client.on("error", (err) => this.lost(err));
  }

  /**
   * Each wait in the lock's queue lasts at most waitMs (lock_timeout), and the server ends the
   * session after idleTimeoutMs without a query. Both for the session's lifetime (not SET LOCAL),
   * reset before the client goes back to the pool. The idle timeout is set before the wait, since
   * the server may grant the lock to a process that froze while waiting; unknown before
   * PostgreSQL 14, where the lock then lasts until TCP keepalive notices a dead peer.
   */
  async configureWait(waitMs: number, idleTimeoutMs: number): Promise<void> {
    await this.#client.query("SELECT set_config('lock_timeout', $1, false)", [String(waitMs)]);
    await this.#client
      .query("SELECT set_config('idle_session_timeout', $1, false)", [String(idleTimeoutMs)])
      .catch(() => undefined);
  }

  /**
   * One wait in the lock's queue: true once held, false when lock_timeout ran out (55P03). The
   * client gives up after clientTimeoutMs (a silent connection).
   */
  async waitForLock(clientTimeoutMs: number): Promise<boolean> {
    try {
      const { rows } = await this.#client.query<{ pid: number }>(
        withTimeout(
          {
            text: "SELECT pg_advisory_lock($1::bigint), pg_backend_pid() AS pid",
            values: [String(this.#key)],
          },
          clientTimeoutMs,
        ),
      );
      this.pid = rows[0]?.pid ?? 0;
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE) return false;
      throw err;
    }
  }

  /**
   * One check: the server pauses `pauseMs`, then answers; failed when no answer came within
   * `timeoutMs` after that. The verdict waits for this process's pending I/O first: after the
   * event loop was blocked (a long computation, a starved host) the timer fires before the socket
   * is read, and an answer already there must still count.
   */
  async ping(pauseMs: number, timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => setImmediate(() => reject(new Error(`no answer within ${timeoutMs} ms`))),
        pauseMs + timeoutMs,
      );
    });
    try {
      const check = this.#client.query("SELECT pg_sleep($1::float8 / 1000)", [pauseMs]);
      await Promise.race([check, silent]);
    } finally {
      clearTimeout(timer);
    }
  }

  lost(cause: unknown): void {
    if (this.isLost) return;
    this.isLost = true;
    this.onLost(cause);
  }

  /** Back to the pool holding nothing. */
  release(): void {
    if (this.#returned) return;
    this.#returned = true;
    this.#client.removeAllListeners("error");
    this.#client.release();
  }

  /** Closes the session; the server frees anything it held. */
  destroy(): void {
    if (this.#returned) return;
    this.#returned = true;
    this.#client.release(true);
  }

  async unlockAndRelease(): Promise<void> {
    if (this.isLost) return this.destroy();
    try {
      await this.#client.query(
        withTimeout(
          { text: "SELECT pg_advisory_unlock($1::bigint)", values: [String(this.#key)] },
          2_000,
        ),
      );
    } catch {
      return this.destroy();
    }
    await this.resetAndRelease();
  }

  /** Back to the pool with the session's settings reset (the lock not held). */
  async resetAndRelease(): Promise<void> {
    if (this.#returned) return;
    try {
      await this.#client.query(
        withTimeout({ text: "RESET idle_session_timeout; RESET lock_timeout" }, 2_000),
      );
      this.release();
    } catch {
      this.destroy();
    }
  }
}

/** SQLSTATE lock_not_available: the wait for the lock ran past lock_timeout. */
const LOCK_NOT_AVAILABLE = "55P03";

/** pg honours a per-query `query_timeout` (client.js), though its type definitions omit it. */
function withTimeout(config: pg.QueryConfig, timeoutMs: number): pg.QueryConfig {
  return { ...config, query_timeout: timeoutMs } as pg.QueryConfig;
}
