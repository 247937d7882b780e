/**
 * Row → canonical practice. Together with mysql-practice-source.ts the only place that knows legacy
 * names: the row carries them (LEGACY_READS in @svc/legacy/reads maps them), the Practice does not.
 */
import type { Practice, PracticeWarning } from "../domain/practice.ts";

/** One row of the union query: the practice's representative primary row, its CRM row, its area. */
export interface PracticeRow {
  /** Which source the practice comes from: a primary-system practice or a CRM record alone. */
  bron: "primary" | "secondary";
  practice_id: string;
  // tbl_praktijk: the representative row (null for a secondary practice)
  praktijk_naam: string | null;
  actief: number | null;
  zichtbaar: number | null;
  praktijk_taal: string | null;
  logo: string | null;
  regio_tekst: string | null;
  contact_tekst: string | null;
  coach_mdw_ref: string | null;
  /** Number of the practice's rows that are active and visible. */
  actieve_rijen: number | string | null;
  /** tdm_ref over all the practice's rows: JSON text (MariaDB) or parsed JSON (MySQL 8). */
  tdm_refs: string | string[] | null;
  // crm_bedrijf (all null when the practice has no CRM row)
  crm_id: string | null;
  crm_naam: string | null;
  alias: string | null;
  organisatie_type: string | null;
  btw_nummer: string | null;
  straat: string | null;
  postcode: string | null;
  gemeente: string | null;
  provincie: string | null;
  land: string | null;
  email: string | null;
  telefoon: string | null;
  crm_taal: string | null;
  periode_start: string | null;
  periode_stop: string | null;
  // tbl_postcode (null when the postal code is missing or not a known area)
  breedtegraad: number | string | null;
  lengtegraad: number | string | null;
}

/** `language`: exactly `nl` or `fr`; anything else (`NL`, `de`, '', NULL) is null. */
export function normalizeLanguage(raw: string | null): "nl" | "fr" | null {
  return raw === "nl" || raw === "fr" ? raw : null;
}

/** "Missing" means NULL or empty (shared/legacy/README.md); the first present value wins. */
function firstNonEmpty(...values: Array<string | null>): string | null {
  return values.find((v) => v !== null && v !== "") ?? null;
}

/** A DATE as the source holds it; MySQL's zero date means "no date". */
function calendarDate(value: string | null): string | null {
  if (value === null || value.startsWith("0000-00-00")) return null;
  return value.slice(0, 10);
}

/**
 * A secondary practice is active when today lies within its period, both bounds inclusive; a
 * missing bound is open (our reading where the contract is silent). `2999-12-31` needs no special
 * case.
 */
export function withinPeriod(start: string | null, stop: string | null, today: string): boolean {
  return (start === null || start <= today) && (stop === null || today <= stop);
}

function tdmIds(raw: PracticeRow["tdm_refs"]): string[] {
  if (raw === null) return [];
  const list = typeof raw === "string" ? (JSON.parse(raw) as unknown[]) : raw;
  // A relation, not an identity: distinct and in a stable order, whatever the aggregate returned.
  return [...new Set(list.filter((v): v is string => typeof v === "string"))].sort();
}

function coordinate(value: number | string | null): number | null {
  if (value === null || value === "") return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

function geo(
  row: PracticeRow,
): Pick<Practice["address"], "latitude" | "longitude" | "geo_precision"> {
  const latitude = coordinate(row.breedtegraad);
  const longitude = coordinate(row.lengtegraad);
  if (latitude === null || longitude === null)
    return { latitude: null, longitude: null, geo_precision: null };
  return { latitude, longitude, geo_precision: "postal_code" };
}

function warnings(row: PracticeRow): PracticeWarning[] {
  if (row.bron !== "primary") return [];
  const out: PracticeWarning[] = [];
  if (Number(row.actieve_rijen ?? 0) > 1) out.push("multiple_active_rows");
  if (row.crm_id === null) out.push("source_record_missing");
  return out;
}

/** `today` is the primary system's calendar date (YYYY-MM-DD). */
export function toPractice(row: PracticeRow, today: string): Practice {
  const primary = row.bron === "primary";
  return {
    practice_id: row.practice_id,
    name: firstNonEmpty(row.crm_naam, primary ? row.praktijk_naam : null),
    alias: row.alias,
    active: primary
      ? row.actief === 1 && row.zichtbaar === 1
      : withinPeriod(calendarDate(row.periode_start), calendarDate(row.periode_stop), today),
    visible: primary ? row.zichtbaar === 1 : true,
    language: normalizeLanguage(primary ? row.praktijk_taal : row.crm_taal),
    organisation_type: row.organisatie_type,
    period: {
      start_date: calendarDate(row.periode_start),
      stop_date: calendarDate(row.periode_stop),
    },
    identifiers: { vat: row.btw_nummer },
    address: {
      street: row.straat,
      postal_code: row.postcode,
      city: row.gemeente,
      country: row.land,
      province: row.provincie,
      ...geo(row),
    },
    contact: { email: row.email, phone: row.telefoon },
    presentation: primary
      ? { logo: row.logo, region_text: row.regio_tekst, contact_text: row.contact_tekst }
      : { logo: null, region_text: null, contact_text: null },
    coach: { reference: primary ? row.coach_mdw_ref : null },
    external_refs: { crm_id: row.practice_id, tdm_ids: primary ? tdmIds(row.tdm_refs) : [] },
    warnings: warnings(row),
  };
}
