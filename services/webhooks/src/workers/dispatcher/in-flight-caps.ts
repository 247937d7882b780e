/**
 * At most `limit` attempts to one subscription at a time in this process, so a slow subscriber
 * fills a few delivery slots, never all of them, and other subscribers keep their pace.
 *
 * A message for a subscription at its cap may wait here briefly (a healthy subscriber's burst
 * costs milliseconds), but only `maxWaiting` per subscription and only for `maxWaitMs`: past
 * that, acquire() answers false and the caller hands the message back to the stream for
 * deferDelayMs(). That delay is the expected wait for a slot, from the subscription's recent
 * attempt time and how many of its messages are already parked: tens of milliseconds for a busy
 * healthy subscriber, up to `maxDeferMs` for a stalled one with a backlog, so the backlog is
 * re-offered at a bounded rate instead of churning through the stream.
 */
export type InFlightCaps = {
  /** `messageId` lets a parked message be recognised when it comes back. */
  acquire(key: string, messageId: string): Promise<boolean>;
  release(key: string): void;
  deferDelayMs(key: string, messageId: string): number;
  /** Subscriptions and parked messages tracked now (both bounded; see below). */
  tracked(): { subscriptions: number; parked: number };
};

export type InFlightCapsOptions = {
  limit: number;
  maxWaiting: number;
  maxWaitMs: number;
  minDeferMs: number;
  maxDeferMs: number;
  /** An idle subscription's entry is dropped after this long (default 10 min). */
  forgetIdleAfterMs?: number;
};

type Waiter = { grant: () => void; timer: NodeJS.Timeout };
// startedAt is paired FIFO with releases: any pairing gives the same sum of hold times, so the
// average holds.
type State = {
  held: number;
  waiting: Waiter[];
  startedAt: number[];
  avgMs: number;
  parked: Map<string, number>;
  usedAt: number;
};

// Parked messages remembered over all subscriptions (~150 bytes each): a stalled subscriber's
// backlog cycling through the stream must not grow memory with the backlog. Past the bound new
// ones are not counted, which only shortens the estimate; it saturates at maxDeferMs long before.
const MAX_PARKED_TRACKED = 100_000;
const SWEEP_EVERY_ACQUIRES = 1_024;

export function inFlightCaps(options: InFlightCapsOptions): InFlightCaps {
  // One small entry per subscription seen, kept while it is busy or recently was (its attempt
  // time is the estimate); idle ones are dropped, so deleted subscriptions do not pile up.
  const states = new Map<string, State>();
  const forgetIdleAfterMs = options.forgetIdleAfterMs ?? 600_000;
  let parkedTotal = 0;
  let acquires = 0;
  const unpark = (s: State, messageId: string) => {
    if (s.parked.delete(messageId)) parkedTotal--;
  };
  const stateOf = (key: string) => {
    let s = states.get(key);
    if (!s)
      states.set(
        key,
        (s = {
          held: 0,
          waiting: [],
          startedAt: [],
          avgMs: 0,
          parked: new Map(),
          usedAt: Date.now(),
        }),
      );
    return s;
  };
  const forgetIdle = (now: number) => {
    for (const [key, s] of states) {
      if (s.held === 0 && s.waiting.length === 0 && now - s.usedAt >= forgetIdleAfterMs) {
        parkedTotal -= s.parked.size;
        states.delete(key);
      }
    }
  };
  return {
    acquire(key, messageId) {
      if (++acquires % SWEEP_EVERY_ACQUIRES === 0) forgetIdle(Date.now());
      const s = stateOf(key);
      s.usedAt = Date.now();
      unpark(s, messageId);
      if (s.held < options.limit) {
        s.held++;
        s.startedAt.push(Date.now());
        return Promise.resolve(true);
      }
      if (s.waiting.length >= options.maxWaiting) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const waiter: Waiter = {
          // The slot is handed over directly by release(): `held` stays at the limit.
          grant: () => resolve(true),
          timer: setTimeout(() => {
            s.waiting.splice(s.waiting.indexOf(waiter), 1);
            resolve(false);
          }, options.maxWaitMs),
        };
        s.waiting.push(waiter);
      });
    },
    release(key) {
      const s = stateOf(key);
      const heldMs = Date.now() - (s.startedAt.shift() ?? Date.now());
      s.avgMs = s.avgMs === 0 ? heldMs : 0.8 * s.avgMs + 0.2 * heldMs;
      const next = s.waiting.shift();
      if (next) {
        clearTimeout(next.timer);
        s.startedAt.push(Date.now());
        return next.grant();
      }
      s.held = Math.max(0, s.held - 1);
    },
    deferDelayMs(key, messageId) {
      const s = stateOf(key);
      const now = Date.now();
      s.usedAt = now;
      parkedTotal -= forgetExpired(s.parked, now);
      const expected = ((s.parked.size + 1) / options.limit) * Math.max(s.avgMs, 1);
      const delay = Math.round(
        Math.min(options.maxDeferMs, Math.max(options.minDeferMs, expected)) *
          (0.75 + Math.random() * 0.5),
      );
      // A parked message normally comes back (and is forgotten in acquire); one that another
      // replica took instead is forgotten once well past its time.
      if (s.parked.has(messageId)) s.parked.set(messageId, now + 2 * delay + 5_000);
      else if (parkedTotal < MAX_PARKED_TRACKED) {
        s.parked.set(messageId, now + 2 * delay + 5_000);
        parkedTotal++;
      }
      return delay;
    },
    tracked: () => ({ subscriptions: states.size, parked: parkedTotal }),
  };
}

/**
 * Drops a few expired entries from the front (insertion order is roughly expiry order); returns
 * how many.
 */
function forgetExpired(parked: Map<string, number>, now: number): number {
  let checked = 0;
  let dropped = 0;
  for (const [id, expiresAt] of parked) {
    if (++checked > 64) break;
    if (expiresAt <= now) {
      parked.delete(id);
      dropped++;
    }
  }
  return dropped;
}
