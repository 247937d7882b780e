import { EVENT_CATALOGUE } from "../catalogue.ts";
import type { EntityType, EventType } from "../catalogue.ts";

/** One record as the source sees it now; T is the service's canonical type. */
export type ChangeRecord<T extends object = object> = {
  /** The public identifier (`entity.id` in events). */
  id: string;
  /**
   * The canonical form (the contract's fields only), or null when the record exists but is not
   * live (soft-deleted), so an incremental pass can report a soft delete without a sweep.
   */
  canonical: T | null;
  /**
   * Calendar date (YYYY-MM-DD, in the detector's zone) from which the canonical form changes with
   * no source write: a future display date, a period boundary. On that date the record is read
   * again (`byIds`) and an `updated` event follows if its canonical form did change.
   */
  recheckOn?: string | null;
  /**
   * The source's modification time as stored (wall clock, `YYYY-MM-DD HH:MM:SS`); moves the cursor.
   */
  modifiedLocal?: string | null;
  /**
   * The source's digest of what `canonical` was mapped from, computed by the same read
   * (SweepDigests); absent where the source has none.
   */
  digest?: Buffer | null;
};

/** A live record's key and source digest: what a sweep by digest reads first. */
export type SourceDigest = { id: string; digest: Buffer };

/**
 * A digest of every record, computed by the source (e.g. in SQL) over every column and joined row
 * the mapper reads. A sweep reads every live record's digest and reads in full (`byIds`) only the
 * records whose digest is not the one stored with their state, or whose recheck date has come; so
 * equal digests must mean an equal canonical form on every date before the record's `recheckOn`.
 * Every record the source returns should carry its `digest`.
 */
export type SweepDigests = {
  /**
   * Names the mapping and every setting it depends on (a time zone): change it whenever the same
   * source record would map differently. A sweep under a version the cursor does not hold reads
   * every record in full and stores their digests again.
   */
  version: string;
  /** Every live record's id and digest, in pages. */
  sweep(ctx: PassContext): AsyncIterable<SourceDigest[]>;
};

/** A record's key and modification time, without its content: what a quick pass reads first. */
export type ChangeStamp = {
  id: string;
  /** As in ChangeRecord.modifiedLocal; never null (a record without one is the sweep's). */
  modifiedLocal: string;
};

/**
 * What a pass tells the source: the mapper must derive calendar fields from `today`, not the clock.
 */
export type PassContext = {
  /** Today in the detector's zone, YYYY-MM-DD. */
  today: string;
  nowMs: number;
  /** Aborted when the pass must stop (leadership lost, shutdown); long reads may honour it. */
  signal: AbortSignal;
};

/**
 * A read-only source of one entity type, implemented by the service that owns it (e.g. a
 * `MysqlVacancyChangeSource` with the service's row → canonical mapper). Pages should be a few
 * hundred to a few thousand records: each page is evaluated and committed in one transaction.
 */
export interface ChangeSource<T extends object = object> {
  /** Stable name of this source; keys its cursor row (e.g. "vacancies"). */
  readonly name: string;
  readonly entityType: EntityType;
  readonly events: { created: EventType; updated: EventType; deleted: EventType };
  /**
   * Records whose modification time is at or after `modifiedAfterLocal` (wall clock in the
   * source's zone), soft-deleted ones included (canonical null), in pages. The detector already
   * widened the bound by its overlap window.
   */
  changedSince(
    cursor: { modifiedAfterLocal: string },
    ctx: PassContext,
  ): AsyncIterable<ChangeRecord<T>[]>;
  /**
   * Optional: the stamps only of the records changedSince would return (soft-deleted included),
   * in pages, read from an index where the source has one. Quick passes read these several times
   * a second and then full records (`byIds`) only for versions not evaluated yet; without it they
   * read changedSince.
   */
  stampsSince?(
    cursor: { modifiedAfterLocal: string },
    ctx: PassContext,
  ): AsyncIterable<ChangeStamp[]>;
  /** Every live record, in pages (keyset order recommended): the full sweep. */
  sweep(ctx: PassContext): AsyncIterable<ChangeRecord<T>[]>;
  /**
   * Optional: source digests, so that a sweep reads in full only what changed (SweepDigests).
   */
  readonly digests?: SweepDigests;
  /** The live records among `ids`; an id not returned is treated as deleted. */
  byIds(ids: string[], ctx: PassContext): Promise<ChangeRecord<T>[]>;
}

/** Fails fast on a source whose event types are not its entity type's in the event catalogue. */
export function checkSource<T extends object>(source: ChangeSource<T>): ChangeSource<T> {
  for (const type of Object.values(source.events)) {
    if (EVENT_CATALOGUE[type] !== source.entityType) {
      throw new RangeError(
        `event type ${type} does not belong to entity type ${source.entityType}`,
      );
    }
  }
  return source;
}
