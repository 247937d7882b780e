/**
 * Vacancies as a change source for the detector of @svc/events. The canonical form is exactly the
 * API response, `updated_at` included: it is a contract field, so a write that moves it is a change
 * a client can see, and reporting it is what `vacancy.updated` promises. `published` is judged on
 * the pass's `today`, never the clock.
 */
import type {
  ChangeRecord,
  ChangeSource,
  ChangeStamp,
  PassContext,
  SourceDigest,
  SweepDigests,
} from "@svc/events";
import type { Vacancy } from "../domain/vacancy-catalogue.ts";
import type {
  FeedPosition,
  VacancyChangeFeed,
  VacancyFeedDigest,
  VacancyFeedEntry,
  VacancyFeedStamp,
} from "../domain/ports.ts";

/** Keys the cursor row in change_cursor; changing it would start over with a new baseline. */
export const VACANCY_SOURCE_NAME = "vacancies";

/**
 * The date `published` will flip with no write: a visible vacancy whose display date is still to
 * come is published from that date on. Invisible ones stay unpublished whatever the date, and a
 * past or missing date has nothing left to flip.
 */
export function publicationRecheckOn(vacancy: Vacancy, today: string): string | null {
  const date = vacancy.display_date;
  return vacancy.visible && date !== null && date > today ? date : null;
}

function toRecord(entry: VacancyFeedEntry, today: string): ChangeRecord<Vacancy> {
  return {
    id: entry.uuid,
    canonical: entry.vacancy,
    recheckOn: entry.vacancy ? publicationRecheckOn(entry.vacancy, today) : null,
    modifiedLocal: entry.modifiedLocal,
    digest: entry.digest,
  };
}

export class VacancyChangeSource implements ChangeSource<Vacancy> {
  readonly name = VACANCY_SOURCE_NAME;
  readonly entityType = "vacancy" as const;
  readonly events = {
    created: "vacancy.created",
    updated: "vacancy.updated",
    deleted: "vacancy.deleted",
  } as const;
  readonly #feed: VacancyChangeFeed;
  readonly #pageSize: number;

  /** The feed's digests: a sweep reads in full only what changed. */
  readonly digests: SweepDigests;

  /**
   * `pageSize`: rows per legacy query; the rows are large (MEDIUMTEXT), so a few hundred.
   * `digestPageSize`: digests per legacy query, 16 bytes each.
   */
  constructor(
    feed: VacancyChangeFeed,
    options: { pageSize?: number; digestPageSize?: number } = {},
  ) {
    this.#feed = feed;
    this.#pageSize = options.pageSize ?? 500;
    const digestPageSize = options.digestPageSize ?? 5_000;
    this.digests = {
      version: feed.mappingVersion,
      sweep: (ctx) => digestPages(feed, digestPageSize, ctx),
    };
  }

  async *changedSince(
    cursor: { modifiedAfterLocal: string },
    ctx: PassContext,
  ): AsyncIterable<ChangeRecord<Vacancy>[]> {
    const asOf = { today: ctx.today };
    for (let after: VacancyFeedEntry | undefined; ;) {
      ctx.signal.throwIfAborted();
      // Every entry of this feed has a modification time (NULL never matches `>=`).
      const position = after
        ? { modifiedLocal: after.modifiedLocal as string, rowKey: after.rowKey }
        : null;
      const page = await this.#feed.modifiedSince(
        cursor.modifiedAfterLocal,
        position,
        this.#pageSize,
        asOf,
      );
      if (page.length > 0) yield page.map((e) => toRecord(e, ctx.today));
      if (page.length < this.#pageSize) return;
      after = page[page.length - 1];
    }
  }

  async *stampsSince(
    cursor: { modifiedAfterLocal: string },
    ctx: PassContext,
  ): AsyncIterable<ChangeStamp[]> {
    for (let after: FeedPosition | null = null; ;) {
      ctx.signal.throwIfAborted();
      const page = await this.#feed.stampsSince(cursor.modifiedAfterLocal, after, this.#pageSize);
      if (page.length > 0) yield page.map((s) => ({ id: s.uuid, modifiedLocal: s.modifiedLocal }));
      if (page.length < this.#pageSize) return;
      const last = page[page.length - 1] as VacancyFeedStamp;
      after = { modifiedLocal: last.modifiedLocal, rowKey: last.rowKey };
    }
  }

  async *sweep(ctx: PassContext): AsyncIterable<ChangeRecord<Vacancy>[]> {
    const asOf = { today: ctx.today };
    for (let afterRowKey: number | null = null; ;) {
      ctx.signal.throwIfAborted();
      const page = await this.#feed.live(afterRowKey, this.#pageSize, asOf);
      if (page.length > 0) yield page.map((e) => toRecord(e, ctx.today));
      if (page.length < this.#pageSize) return;
      afterRowKey = (page[page.length - 1] as VacancyFeedEntry).rowKey;
    }
  }

  async byIds(ids: string[], ctx: PassContext): Promise<ChangeRecord<Vacancy>[]> {
    const entries = await this.#feed.byUuids(ids, { today: ctx.today });
    return entries.map((e) => toRecord(e, ctx.today));
  }
}

async function* digestPages(
  feed: VacancyChangeFeed,
  pageSize: number,
  ctx: PassContext,
): AsyncIterable<SourceDigest[]> {
  for (let afterRowKey: number | null = null; ;) {
    ctx.signal.throwIfAborted();
    const page = await feed.liveDigests(afterRowKey, pageSize);
    if (page.length > 0) yield page.map((d) => ({ id: d.uuid, digest: d.digest }));
    if (page.length < pageSize) return;
    afterRowKey = (page[page.length - 1] as VacancyFeedDigest).rowKey;
  }
}
