/**
 * A counting semaphore: at most `limit` holders at a time, waiters served in arrival order.
 * Used so no more than `concurrency` handlers run at once, whatever the client buffers.
 */
export type ConcurrencyLimit = {
  acquire(): Promise<void>;
  release(): void;
  inFlight(): number;
  /** Resolves once nobody holds a slot (immediately if nobody does). */
  idle(): Promise<void>;
};

export function concurrencyLimit(limit: number): ConcurrencyLimit {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
  let held = 0;
  const waiters: Array<() => void> = [];
  let idleWaiters: Array<() => void> = [];
  return {
    acquire() {
      if (held < limit) {
        held++;
        return Promise.resolve();
      }
      // The slot is handed over directly by release(), so `held` never drops and rises again.
      return new Promise<void>((resolve) => waiters.push(resolve));
    },
    release() {
      const next = waiters.shift();
      if (next) return next();
      held--;
      if (held === 0) {
        const toWake = idleWaiters;
        idleWaiters = [];
        for (const wake of toWake) wake();
      }
    },
    inFlight: () => held,
    idle: () =>
      held === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)),
  };
}
