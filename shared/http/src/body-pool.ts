/**
 * Reusable response-body buffers. A fresh buffer per response is memory outside V8's heap that V8
 * still counts towards starting its next full collection, so under list load the bodies alone set
 * off frequent Mark-Compacts. Bodies taken from here go back once the socket has written them, and
 * the few kept free are released after a quiet spell, so an idle process holds none.
 * Why: docs/decisions/list-pages.md.
 */
export interface BodyPoolOptions {
  /** Bytes of each buffer; a body larger than this gets a buffer of its own. */
  bufferBytes: number;
  /** How many free buffers are kept for reuse at most. */
  maxFree: number;
  /** Free buffers are released when none was taken for this long (ms). */
  idleMs: number;
}

export class BodyPool {
  readonly #options: BodyPoolOptions;
  readonly #free: Buffer[] = [];
  #takenSinceTrim = false;
  #trimTimer: NodeJS.Timeout | undefined;
  /** Buffers this pool has allocated (a test and benchmark figure). */
  allocated = 0;

  constructor(options: BodyPoolOptions) {
    this.#options = options;
  }

  /** Bytes of each pooled buffer: a `take` of more gets a buffer of its own. */
  get bufferBytes(): number {
    return this.#options.bufferBytes;
  }

  /** Free buffers held now. */
  get free(): number {
    return this.#free.length;
  }

  /**
   * A buffer of at least `bytes` and the call that hands it back (call it once the buffer is no
   * longer read: for a response, on `finish`). A body larger than `bufferBytes` gets a fresh
   * buffer whose release does nothing.
   */
  take(bytes: number): { buffer: Buffer; release: () => void } {
    if (bytes > this.#options.bufferBytes)
      return { buffer: Buffer.allocUnsafe(bytes), release: () => undefined };
    this.#takenSinceTrim = true;
    let buffer = this.#free.pop();
    if (buffer === undefined) {
      buffer = Buffer.allocUnsafeSlow(this.#options.bufferBytes);
      this.allocated += 1;
    }
    const taken = buffer;
    let released = false;
    return {
      buffer: taken,
      release: () => {
        if (released) return;
        released = true;
        if (this.#free.length < this.#options.maxFree) this.#free.push(taken);
        this.#armTrim();
      },
    };
  }

  /** Releases every free buffer once a whole `idleMs` passed without a take. */
  #armTrim(): void {
    if (this.#trimTimer !== undefined) return;
    this.#takenSinceTrim = false;
    this.#trimTimer = setTimeout(() => {
      this.#trimTimer = undefined;
      if (this.#takenSinceTrim) this.#armTrim();
      else this.#free.length = 0;
    }, this.#options.idleMs);
    this.#trimTimer.unref();
  }
}
