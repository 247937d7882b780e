/**
 * Practices as a change source for the detector of @svc/events. The canonical form is exactly the
 * API response, with a secondary practice's `active` judged on the pass's `today`, never the clock.
 * The response has no modification time, so a write that only restamps a row changes nothing and
 * emits nothing.
 */
import type { ChangeRecord, ChangeSource, ChangeStamp, PassContext } from "@svc/events";
import type { Practice } from "../domain/practice.ts";
import type {
  PracticeChangeFeed,
  PracticeFeedEntry,
  PracticeModification,
} from "../domain/ports.ts";

/** Keys the cursor row in change_cursor; changing it would start over with a new baseline. */
export const PRACTICE_SOURCE_NAME = "practices";

const DAY_MS = 86_400_000;

function dayAfter(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
}

/**
 * The next date a secondary practice's `active` flips with no write (bounds inclusive, a missing
 * bound open): its start date while that is still to come, else the day after its stop date while
 * that is today or later. A primary practice's `active` does not follow the calendar.
 */
export function periodRecheckOn(period: Practice["period"], today: string): string | null {
  if (period.start_date !== null && period.start_date > today) return period.start_date;
  if (period.stop_date !== null && period.stop_date >= today) return dayAfter(period.stop_date);
  return null;
}

function toRecord(
  entry: PracticeFeedEntry,
  today: string,
  modifiedLocal?: string,
): ChangeRecord<Practice> {
  const { practice } = entry;
  return {
    id: practice.practice_id,
    canonical: practice,
    recheckOn: entry.periodDecidesActive ? periodRecheckOn(practice.period, today) : null,
    ...(modifiedLocal === undefined ? {} : { modifiedLocal }),
  };
}

/** The latest modification time per practice among `rows`. */
function latestByPractice(rows: PracticeModification[]): Map<string, string> {
  const latest = new Map<string, string>();
  for (const r of rows) {
    const seen = latest.get(r.practiceId);
    if (seen === undefined || r.modifiedLocal > seen) latest.set(r.practiceId, r.modifiedLocal);
  }
  return latest;
}

export class PracticeChangeSource implements ChangeSource<Practice> {
  readonly name = PRACTICE_SOURCE_NAME;
  readonly entityType = "practice" as const;
  readonly events = {
    created: "practice.created",
    updated: "practice.updated",
    deleted: "practice.deleted",
  } as const;
  readonly #feed: PracticeChangeFeed;
  readonly #pageSize: number;

  constructor(feed: PracticeChangeFeed, options: { pageSize?: number } = {}) {
    this.#feed = feed;
    this.#pageSize = options.pageSize ?? 500;
  }

  /**
   * Practices with a row modified at or after the cursor. A practice that can no longer be read
   * (its rows deleted since) is left to the sweep, which reports the delete.
   */
  async *changedSince(
    cursor: { modifiedAfterLocal: string },
    ctx: PassContext,
  ): AsyncIterable<ChangeRecord<Practice>[]> {
    for await (const rows of this.#modifications(cursor, ctx)) {
      const latest = latestByPractice(rows);
      const entries = await this.#feed.byIds([...latest.keys()], ctx.today);
      if (entries.length > 0)
        yield entries.map((e) => toRecord(e, ctx.today, latest.get(e.practice.practice_id)));
    }
  }

  /**
   * The stamps of the rows changedSince reads, one per row: quick passes read full practices only
   * for the versions they have not evaluated.
   */
  async *stampsSince(
    cursor: { modifiedAfterLocal: string },
    ctx: PassContext,
  ): AsyncIterable<ChangeStamp[]> {
    for await (const rows of this.#modifications(cursor, ctx))
      yield rows.map((r) => ({ id: r.practiceId, modifiedLocal: r.modifiedLocal }));
  }

  /** The rows modified at or after the cursor, in non-empty pages. */
  async *#modifications(
    cursor: { modifiedAfterLocal: string },
    ctx: PassContext,
  ): AsyncIterable<PracticeModification[]> {
    for (let after: PracticeModification | null = null; ;) {
      ctx.signal.throwIfAborted();
      const rows = await this.#feed.modifications(cursor.modifiedAfterLocal, after, this.#pageSize);
      if (rows.length > 0) yield rows;
      if (rows.length < this.#pageSize) return;
      after = rows[rows.length - 1] as PracticeModification;
    }
  }

  async *sweep(ctx: PassContext): AsyncIterable<ChangeRecord<Practice>[]> {
    for (let afterId: string | null = null; ;) {
      ctx.signal.throwIfAborted();
      const page = await this.#feed.live(afterId, this.#pageSize, ctx.today);
      if (page.length > 0) yield page.map((e) => toRecord(e, ctx.today));
      if (page.length < this.#pageSize) return;
      afterId = (page[page.length - 1] as PracticeFeedEntry).practice.practice_id;
    }
  }

  async byIds(ids: string[], ctx: PassContext): Promise<ChangeRecord<Practice>[]> {
    const entries = await this.#feed.byIds(ids, ctx.today);
    return entries.map((e) => toRecord(e, ctx.today));
  }
}
