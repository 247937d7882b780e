import { backoffMs } from "@svc/time";

export type WorkQueueOptions = {
  /** First retry delay after a failure; doubles per consecutive failure of the same key. */
  retryMinMs: number;
  retryMaxMs: number;
  /** Called for each add that puts the key in the queue (not for one already waiting). */
  onAdd?: () => void;
  /** Called for each retry scheduled. */
  onRetry?: () => void;
};

/**
 * A work queue keyed by "namespace/name", with client-go's guarantees: a key waits in the queue
 * at most once however often it is added; a key is never handed to two workers at once (added
 * while in progress, it runs again after); failures retry with per-key exponential backoff.
 */
export class WorkQueue {
  readonly #o: WorkQueueOptions;
  readonly #queue: string[] = [];
  readonly #queued = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #dirty = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #timers = new Map<string, { due: number; timer: NodeJS.Timeout }>();
  #waiters: Array<(key: string | undefined) => void> = [];
  #closed = false;

  constructor(options: WorkQueueOptions) {
    this.#o = options;
  }

  /** Keys waiting (not in progress), what client-go reports as the queue's depth. */
  get length(): number {
    return this.#queue.length;
  }

  /** Keys being worked on. */
  get inProgress(): number {
    return this.#processing.size;
  }

  add(key: string): void {
    if (this.#closed) return;
    if (this.#processing.has(key)) {
      if (!this.#dirty.has(key)) this.#o.onAdd?.();
      this.#dirty.add(key);
      return;
    }
    if (this.#queued.has(key)) return;
    this.#o.onAdd?.();
    this.#enqueue(key);
  }

  #enqueue(key: string): void {
    const waiter = this.#waiters.shift();
    if (waiter) {
      this.#processing.add(key);
      waiter(key);
      return;
    }
    this.#queued.add(key);
    this.#queue.push(key);
  }

  /** Adds the key after `ms`; of two pending delays for one key the earlier wins. */
  addAfter(key: string, ms: number): void {
    if (this.#closed) return;
    const due = Date.now() + ms;
    const pending = this.#timers.get(key);
    if (pending && pending.due <= due) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      this.add(key);
    }, ms);
    this.#timers.set(key, { due, timer });
  }

  /** The next key to work on (now marked in progress), or undefined once closed. */
  get(): Promise<string | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    const key = this.#queue.shift();
    if (key === undefined) return new Promise((resolve) => this.#waiters.push(resolve));
    this.#queued.delete(key);
    this.#processing.add(key);
    return Promise.resolve(key);
  }

  /** Ends work on a key; a key added meanwhile goes back in the queue. */
  done(key: string): void {
    this.#processing.delete(key);
    if (this.#dirty.delete(key) && !this.#closed) this.#enqueue(key);
  }

  /** Schedules a retry after the key's next backoff step; returns the delay. */
  retry(key: string): number {
    const failures = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, failures);
    const delay = backoffMs(failures, this.#o.retryMinMs, this.#o.retryMaxMs);
    this.#o.onRetry?.();
    this.addAfter(key, delay);
    return delay;
  }

  /** Resets the key's backoff after a success. */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  failures(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  close(): void {
    this.#closed = true;
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter(undefined);
  }
}
