/**
 * Iterates `pages` one page ahead: the next page is being read from the source while the caller
 * applies the current one, so the source's round trip overlaps hashing and the state reads.
 * When the caller stops early (an error, an abort) the read in flight is settled and the source
 * closed; a failure of that read is not the caller's and is dropped.
 */
export async function* readAhead<T>(pages: AsyncIterable<T>): AsyncGenerator<T, void, undefined> {
  const iterator = pages[Symbol.asyncIterator]();
  let next = iterator.next();
  let finished = false;
  try {
    for (;;) {
      const page = await next;
      if (page.done) {
        finished = true;
        return;
      }
      next = iterator.next();
      yield page.value;
    }
  } finally {
    if (!finished) {
      const settled = await next.then(
        (page) => page.done === true,
        () => true,
      );
      if (!settled) await iterator.return?.();
    }
  }
}
