/**
 * The canonical practice (spec 2.3) and the port the domain reads it through. Field meanings live
 * in practice-catalogue.ts; this is the shape the mapper produces and the API returns.
 */

export const PRACTICE_WARNINGS = ["multiple_active_rows", "source_record_missing"] as const;
export type PracticeWarning = (typeof PRACTICE_WARNINGS)[number];

export interface Practice {
  practice_id: string;
  name: string | null;
  alias: string | null;
  active: boolean;
  visible: boolean;
  language: "nl" | "fr" | null;
  organisation_type: string | null;
  period: { start_date: string | null; stop_date: string | null };
  identifiers: { vat: string | null };
  address: {
    street: string | null;
    postal_code: string | null;
    city: string | null;
    country: string | null;
    province: string | null;
    latitude: number | null;
    longitude: number | null;
    geo_precision: "postal_code" | null;
  };
  contact: { email: string | null; phone: string | null };
  presentation: { logo: string | null; region_text: string | null; contact_text: string | null };
  coach: { reference: string | null };
  external_refs: { crm_id: string; tdm_ids: string[] };
  warnings: PracticeWarning[];
}

/** List filters of spec 4.5; each is pushed down into the one union query. */
export interface PracticeFilters {
  active?: boolean;
  visible?: boolean;
  language?: "nl" | "fr";
  /** Exact province text (case-, accent- and space-sensitive). */
  province?: string;
  /** Exact name (case-, accent- and space-sensitive); no fuzzy matching. */
  search?: string;
}

/** One key per filter set and day: what a list's cached total and page marks are kept under. */
export function listKey(filters: PracticeFilters, today: string): string {
  return JSON.stringify([
    today,
    filters.active,
    filters.visible,
    filters.language,
    filters.province,
    filters.search,
  ]);
}

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
 * whose `active` follows its period and so changes with the calendar (spec 2.3).
 */
export interface PracticeFeedEntry {
  practice: Practice;
  periodDecidesActive: boolean;
}

/** A modified legacy row: the practice it belongs to and its modification time (source wall clock). */
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
