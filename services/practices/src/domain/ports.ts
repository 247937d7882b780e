/**
 * The ports the practices domain owns: the practice sources it reads, the change feed change
 * detection reads, and the CRM mirror store it writes through. Adapters in source/ and store/
 * implement them.
 */
import type { Practice, PracticeFilters } from "./practice.ts";
import type {
  AccountWrite,
  MirroredAccount,
  MirrorPosition,
  WriteResult,
} from "./crm-mirror/account.ts";

export interface ObservedValue {
  value: string;
  note: string;
}

/**
 * Both practice sources, read as one. `today` is the calendar date (YYYY-MM-DD) in the primary
 * system's zone that decides a secondary practice's `active`.
 */
export interface PracticeSource {
  /** One page in practice_id order (binary), from both sources; fewer than `limit` at the end. */
  page(
    filters: PracticeFilters,
    today: string,
    window: { limit: number; offset: number },
  ): Promise<Practice[]>;
  /** How many practices the same filters select over the whole union. */
  count(filters: PracticeFilters, today: string): Promise<number>;
  /** The practice with exactly this id, or null. */
  get(practiceId: string, today: string): Promise<Practice | null>;
  /** Values the sources hold for free-text fields with a small known set, keyed by field path. */
  observedValues(): Promise<Record<string, ObservedValue[]>>;
}

/**
 * One practice as change detection reads it. `periodDecidesActive`: a secondary-source practice,
 * whose `active` follows its period and so changes with the calendar.
 */
export interface PracticeFeedEntry {
  practice: Practice;
  periodDecidesActive: boolean;
}

/** A modified legacy row: its practice and its modification time (the source's wall clock). */
export interface PracticeModification {
  practiceId: string;
  modifiedLocal: string;
}

/**
 * What change detection reads (workers/practice-change-source.ts), over both sources. `today`
 * decides a secondary practice's `active`, exactly as for the API.
 */
export interface PracticeChangeFeed {
  /**
   * Rows of either source modified at or after `sinceLocal`, in (modification time, practice id)
   * order, resuming after `after`. A practice appears once per modified row.
   */
  modifications(
    sinceLocal: string,
    after: PracticeModification | null,
    limit: number,
  ): Promise<PracticeModification[]>;
  /** Every practice after `afterId` (null: from the start) in practice_id order. */
  live(afterId: string | null, limit: number, today: string): Promise<PracticeFeedEntry[]>;
  /** The practices among `ids` (exact ids), in no particular order. */
  byIds(ids: readonly string[], today: string): Promise<PracticeFeedEntry[]>;
}

/** The port the CRM mirror routes write and read through. */
export interface CrmMirrorStore {
  /** Applies the writes in order, atomically (all or nothing), and reports each write's outcome. */
  apply(writes: ReadonlyArray<AccountWrite>): Promise<WriteResult[]>;
  /** The stored version of one account (a tombstone included), or null when none was written. */
  get(crmId: string): Promise<MirroredAccount | null>;
  /** Up to `limit` accounts after `after` (null: from the start) in (modified_on, crm_id) order. */
  page(after: MirrorPosition | null, limit: number): Promise<MirroredAccount[]>;
  /** How many accounts (tombstones included) the mirror holds. */
  count(): Promise<number>;
}
