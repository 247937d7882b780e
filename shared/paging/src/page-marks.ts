import { RefreshingCache } from "./page-totals.ts";

/** How a list source keeps its page marks. */
export interface PageMarkOptions {
  /** Rows between two marks: a page from a mark reads fewer than this many more than it returns. */
  spacing?: number;
  /** How long (ms) a list's marks are reused before a background re-read; 0: no marks. */
  ttlMs: number;
  now: () => number;
}

/**
 * Page marks of lists ordered by a key: the key at every `spacing`-th position (0, spacing,
 * 2 x spacing, ...) of a list, read in one pass and kept per list like its total (RefreshingCache:
 * `ttlMs`, re-read in the background). A page at `offset` then starts from the mark at or before
 * it and skips fewer than `spacing` rows, instead of producing every row before it. Only where a
 * page starts comes from the marks: while they are up to `ttlMs` old (plus one re-read), a page's
 * start can be off by the rows created or deleted before it meanwhile, as with OFFSET paging under
 * concurrent writes. Used by the vacancies and practices sources.
 */
export class PageMarks<K> {
  /**
   * The marks `options` ask for (`spacing` defaulting to `defaults.spacing`), or none without
   * options or with a `ttlMs` of 0.
   */
  static of<K>(
    options: PageMarkOptions | undefined,
    defaults: { spacing: number; maxEntries?: number },
  ): PageMarks<K> | undefined {
    if (!options || options.ttlMs <= 0) return undefined;
    return new PageMarks<K>({
      spacing: options.spacing ?? defaults.spacing,
      ttlMs: options.ttlMs,
      now: options.now,
      ...(defaults.maxEntries === undefined ? {} : { maxEntries: defaults.maxEntries }),
    });
  }

  readonly spacing: number;
  readonly #cache: RefreshingCache<K[]>;

  constructor(options: { spacing: number; ttlMs: number; now: () => number; maxEntries?: number }) {
    if (!Number.isSafeInteger(options.spacing) || options.spacing < 1)
      throw new RangeError(`page mark spacing must be a positive integer: ${options.spacing}`);
    this.spacing = options.spacing;
    this.#cache = new RefreshingCache({
      ttlMs: options.ttlMs,
      now: options.now,
      ...(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries }),
    });
  }

  /**
   * Where the page at `offset` of the list `list` starts: the `index`-th mark (its `key`) and the
   * rows to skip after it (`offset`). Past the last mark (the list grew since the marks were read,
   * or the page is past its end) it starts from the last one. Undefined when the list has no rows
   * at all. `read` reads the list's marks (in list order) when they are not kept.
   */
  async start(
    list: string,
    offset: number,
    read: (spacing: number) => Promise<K[]>,
  ): Promise<{ index: number; key: K; offset: number } | undefined> {
    const keys = await this.#cache.get(list, () => read(this.spacing));
    const index = Math.min(Math.floor(offset / this.spacing), keys.length - 1);
    if (index < 0) return undefined;
    return { index, key: keys[index] as K, offset: offset - index * this.spacing };
  }
}
