/**
 * The canonical practice and its list filters; the ports it is read through are in ports.ts. Field
 * meanings live in practice-catalogue.ts; this is the shape the mapper produces and the API
 * returns.
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

/** The list filters; each is pushed down into the one union query. */
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
