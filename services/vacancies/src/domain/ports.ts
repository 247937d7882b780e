/**
 * What the vacancy domain needs from wherever vacancies live, in canonical terms. The legacy
 * MySQL implementation is source/mysql-vacancy-source.ts; nothing outside source/ sees a row.
 */
import type { AllowedOf, Vacancy } from "./vacancy-catalogue.ts";

/** The list filters, already validated and resolved to source-comparable values. */
export interface VacancyFilter {
  language?: AllowedOf<"language">;
  province?: string;
  position?: string;
  status?: AllowedOf<"status.value">;
  published?: boolean;
  practice?: string;
  /** Wall-clock `YYYY-MM-DD HH:MM:SS` in the source's zone: updated at or after it. */
  updatedSinceLocal?: string;
}

/** `today`: the calendar date (YYYY-MM-DD) in the service's zone that `published` is judged on. */
export interface AsOf {
  today: string;
}

/** One key per filter set and day: what a list's cached total and page marks are kept under. */
export function listKey(filter: VacancyFilter, asOf: AsOf): string {
  return JSON.stringify([
    asOf.today,
    filter.language,
    filter.province,
    filter.position,
    filter.status,
    filter.published,
    filter.practice,
    filter.updatedSinceLocal,
  ]);
}

export interface PageRequest {
  offset: number;
  limit: number;
}

/** A reference-list entry: `active` false means no longer selectable, kept for older vacancies. */
export interface ReferenceEntry {
  code: string;
  label: string;
  active: boolean;
}

export interface ReferenceLists {
  positions: ReferenceEntry[];
  provinces: ReferenceEntry[];
}

/** The practice link of a live (not soft-deleted) vacancy, or null when there is none. */
export interface VacancyLink {
  practiceId: string | null;
}

/**
 * Read access to vacancies. Soft-deleted vacancies do not exist for any method. Every method
 * throws SourceUnavailableError (503) when the source cannot be reached in time.
 */
export interface VacancySource {
  /** One page in a stable order (the source's immutable row key). */
  page(filter: VacancyFilter, asOf: AsOf, page: PageRequest): Promise<Vacancy[]>;
  /** Every vacancy matching the filter, across all pages. */
  count(filter: VacancyFilter, asOf: AsOf): Promise<number>;
  get(uuid: string, asOf: AsOf): Promise<Vacancy | null>;
  link(uuid: string): Promise<VacancyLink | null>;
  referenceLists(): Promise<ReferenceLists>;
}

/**
 * One vacancy as the change feed sees it: live or soft-deleted (`vacancy` null), with the
 * source's own order keys. `rowKey` is the source's immutable integer row id (keyset paging);
 * `modifiedLocal` the modification time as stored (wall clock in the source zone), or null.
 */
export interface VacancyFeedEntry {
  uuid: string;
  rowKey: number;
  modifiedLocal: string | null;
  vacancy: Vacancy | null;
  /** The source's digest of the row `vacancy` was mapped from (VacancyChangeFeed.liveDigests). */
  digest: Buffer;
}

/** A live vacancy's keys and source digest, without its content: what a sweep reads first. */
export interface VacancyFeedDigest {
  uuid: string;
  rowKey: number;
  digest: Buffer;
}

/** A vacancy's keys and modification time (never null here), without its content. */
export interface VacancyFeedStamp {
  uuid: string;
  rowKey: number;
  modifiedLocal: string;
}

/** A `modifiedSince` page resumes after this entry, in (modification time, row key) order. */
export interface FeedPosition {
  modifiedLocal: string;
  rowKey: number;
}

/**
 * What change detection reads (workers/vacancy-change-source.ts). Canonical vacancies exactly as
 * the API maps them, `published` judged on `asOf.today`.
 */
export interface VacancyChangeFeed {
  /** Modified at or after `sinceLocal`, soft-deleted included, by (modification time, row key). */
  modifiedSince(
    sinceLocal: string,
    after: FeedPosition | null,
    limit: number,
    asOf: AsOf,
  ): Promise<VacancyFeedEntry[]>;
  /**
   * The keys and modification times only of what `modifiedSince` returns, in the same order:
   * read from the modification-time index, for frequent quick passes.
   */
  stampsSince(
    sinceLocal: string,
    after: FeedPosition | null,
    limit: number,
  ): Promise<VacancyFeedStamp[]>;
  /** Live vacancies after `afterRowKey` (null: from the start), in row-key order. */
  live(afterRowKey: number | null, limit: number, asOf: AsOf): Promise<VacancyFeedEntry[]>;
  /** The live vacancies among `uuids`, in no particular order. */
  byUuids(uuids: readonly string[], asOf: AsOf): Promise<VacancyFeedEntry[]>;
  /**
   * The digests of live vacancies after `afterRowKey`, in row-key order, each over every input of
   * the mapping but today; every entry the feed returns carries its digest.
   */
  liveDigests(afterRowKey: number | null, limit: number): Promise<VacancyFeedDigest[]>;
  /** Names the mapping and the settings it depends on (SweepDigests.version). */
  readonly mappingVersion: string;
}
