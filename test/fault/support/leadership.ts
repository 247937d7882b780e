/**
 * Who leads what in a running fault stack. Two sources that must agree: PostgreSQL's pg_locks
 * names the backend holding each leader election's advisory lock, and the processes' own
 * "leadership acquired" log lines name that backend (`pid`) and the process that logged it. A
 * replica is the leader when the backend it logged last for the lock is the one holding it now.
 */
import type pg from "pg";
import { advisoryLockKey } from "@svc/leader";

export interface LeadershipLine {
  /** The stack process that logged it (`vacancies`, `vacancies#2`, …). */
  process: string;
  lock: string;
  /** The PostgreSQL backend of the lock session. */
  backendPid: number;
  acquired: boolean;
  /** When the process logged it (its log line's time). */
  at: number;
}

/**
 * Collects the leadership lines of a stack's output: pass `onLine` to launchStack (its processes
 * must log at info).
 */
export function leadershipTracker(): {
  onLine(line: string, arrived: number): void;
  lines(): LeadershipLine[];
} {
  const lines: LeadershipLine[] = [];
  const onLine = (line: string, arrived: number) => {
    const match = /^(\S+)\s+(\{.*\})\s*$/.exec(line);
    if (!match || !line.includes("leadership")) return;
    let entry: { msg?: string; lock?: string; pid?: number; time?: string };
    try {
      entry = JSON.parse(match[2]!) as typeof entry;
    } catch {
      return;
    }
    if (entry.msg !== "leadership acquired" && entry.msg !== "leadership released") return;
    const logged = entry.time ? Date.parse(entry.time) : NaN;
    lines.push({
      process: match[1]!,
      lock: entry.lock ?? "",
      backendPid: entry.pid ?? 0,
      acquired: entry.msg === "leadership acquired",
      at: Number.isNaN(logged) ? arrived : logged,
    });
  };
  return { onLine, lines: () => [...lines] };
}

/** The backend holding `lock`'s advisory lock in the current database, if any. */
export async function lockHolder(db: pg.Pool, lock: string): Promise<number | undefined> {
  const key = BigInt.asUintN(64, advisoryLockKey(lock));
  // A bigint advisory key shows in pg_locks as classid = high half, objid = low half, objsubid 1.
  const { rows } = await db.query<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND classid = $1::oid AND objid = $2::oid`,
    [String(key >> 32n), String(key & 0xffffffffn)],
  );
  return rows[0]?.pid;
}

/** The process leading `lock` now: the one whose last acquisition is the lock's holder. */
export async function leaderOf(
  db: pg.Pool,
  lines: ReadonlyArray<LeadershipLine>,
  lock: string,
): Promise<LeadershipLine | undefined> {
  const holder = await lockHolder(db, lock);
  if (holder === undefined) return undefined;
  return lines.findLast((l) => l.lock === lock && l.acquired && l.backendPid === holder);
}
