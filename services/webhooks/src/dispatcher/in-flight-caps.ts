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
};

export type InFlightCapsOptions = { limit: number; maxWaiting: number; maxWaitMs: number; minDeferMs: number; maxDeferMs: number };

type Waiter = { grant: () => void; timer: NodeJS.Timeout };
// startedAt is paired FIFO with releases: any pairing gives the same sum of hold times, so the average holds.
type State = { held: number; waiting: Waiter[]; startedAt: number[]; avgMs: number; parked: Map<string, number> };

const MAX_PARKED_TRACKED = 100_000;

export function inFlightCaps(options: InFlightCapsOptions): InFlightCaps {
  // One small entry per subscription seen (kept while idle: its attempt time is the estimate).
  const states = new Map<string, State>();
  const stateOf = (key: string) => {
    let s = states.get(key);
    if (!s) states.set(key, (s = { held: 0, waiting: [], startedAt: [], avgMs: 0, parked: new Map() }));
    return s;
  };
  return {
    acquire(key, messageId) {
      const s = stateOf(key);
      s.parked.delete(messageId);
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
      forgetExpired(s.parked, now);
      const expected = ((s.parked.size + 1) / options.limit) * Math.max(s.avgMs, 1);
      const delay = Math.round(Math.min(options.maxDeferMs, Math.max(options.minDeferMs, expected)) * (0.75 + Math.random() * 0.5));
      // A parked message normally comes back (and is forgotten in acquire); one that another
      // replica took instead is forgotten once well past its time.
      if (s.parked.size < MAX_PARKED_TRACKED) s.parked.set(messageId, now + 2 * delay + 5_000);
      return delay;
    },
  };
}

/** Drops a few expired entries from the front (insertion order is roughly expiry order). */
function forgetExpired(parked: Map<string, number>, now: number): void {
  let checked = 0;
  for (const [id, expiresAt] of parked) {
    if (++checked > 64) return;
    if (expiresAt <= now) parked.delete(id);
  }
}
