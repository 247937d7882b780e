/** The gate is full: this many verifications are running and the queue behind them is full too. */
export class GateFullError extends Error {
  constructor() {
    super("argon2 verification queue is full");
    this.name = "GateFullError";
  }
}

export interface Argon2GateOptions {
  /**
   * argon2 runs on libuv's pool (4 threads by default); keeping below it leaves threads for the
   * rest.
   */
  maxConcurrent: number;
  maxQueue: number;
}

/**
 * Bounds argon2 work: at most `maxConcurrent` verifications at once, at most `maxQueue` waiting,
 * beyond that an immediate refusal (the caller answers 503) instead of an unbounded backlog.
 * Identical requests in flight share one verification (many replicas of one client starting at
 * once cost one argon2 run).
 */
export class Argon2Gate {
  readonly #maxConcurrent: number;
  readonly #maxQueue: number;
  readonly #waiting: Array<() => void> = [];
  readonly #inFlight = new Map<string, Promise<boolean>>();
  #running = 0;

  constructor(options: Argon2GateOptions) {
    this.#maxConcurrent = options.maxConcurrent;
    this.#maxQueue = options.maxQueue;
  }

  /**
   * Runs `verify` under the bound; `key` identifies identical work (same secret, same stored hash).
   */
  run(key: string, verify: () => Promise<boolean>): Promise<boolean> {
    const shared = this.#inFlight.get(key);
    if (shared) return shared;
    if (this.#running >= this.#maxConcurrent && this.#waiting.length >= this.#maxQueue)
      return Promise.reject(new GateFullError());
    const work = this.#acquire()
      .then(verify)
      .finally(() => {
        this.#inFlight.delete(key);
        this.#release();
      });
    this.#inFlight.set(key, work);
    return work;
  }

  #acquire(): Promise<void> {
    if (this.#running < this.#maxConcurrent) {
      this.#running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) return next();
    this.#running--;
  }
}
