/**
 * Group commit for many concurrent callers: each call waits for its own result, but calls that
 * arrive while earlier batches are being written go to the database together, as one statement
 * and one commit. Idle, a call is sent on the next turn of the event loop (no added delay);
 * busy, batches grow by themselves. Bounded: at most `maxInFlight` batches of `maxBatch` at once.
 */
export type MicroBatcher<I, O> = { run(item: I): Promise<O> };

type Waiting<I, O> = { item: I; resolve: (value: O) => void; reject: (err: unknown) => void };

export function microBatcher<I, O>(
  /** Returns one result per item, in the same order. */
  flush: (items: I[]) => Promise<O[]>,
  options: { maxBatch: number; maxInFlight: number },
): MicroBatcher<I, O> {
  let queue: Array<Waiting<I, O>> = [];
  let inFlight = 0;
  let scheduled = false;

  const send = async (batch: Array<Waiting<I, O>>) => {
    inFlight++;
    try {
      const results = await flush(batch.map((w) => w.item));
      if (results.length !== batch.length)
        throw new Error(`batch returned ${results.length} results for ${batch.length} items`);
      batch.forEach((w, i) => w.resolve(results[i]!));
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      inFlight--;
      pump();
    }
  };
  const pump = () => {
    while (queue.length > 0 && inFlight < options.maxInFlight) {
      const batch = queue.slice(0, options.maxBatch);
      queue = queue.slice(batch.length);
      void send(batch);
    }
  };
  return {
    run(item) {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (scheduled) return;
        scheduled = true;
        // Let the calls made in this turn of the event loop join the same batch.
        setImmediate(() => {
          scheduled = false;
          pump();
        });
      });
    },
  };
}
