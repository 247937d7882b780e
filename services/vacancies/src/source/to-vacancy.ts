/**
 * Legacy vacancy row → canonical vacancy (the contract's vacancy fields). With
 * mysql-vacancy-source.ts the only module that knows the legacy column names
 * (LEGACY_READS in @svc/legacy/reads maps each one to its field).
 */
import type { AllowedOf, Vacancy } from "../domain/vacancy-catalogue.ts";
import type { ReferenceEntry } from "../domain/ports.ts";
import type { LocalToIso } from "./local-time.ts";

/** One `tbl_vacature` row as the source selects it, with the two reference labels joined in. */
export interface VacancyRow {
  uuid: string;
  kop_publiek: string | null;
  naam_frontend: string | null;
  naam_intern: string | null;
  slug: string | null;
  teaser: string | null;
  taal: string | null;
  praktijk_ref: string | null;
  praktijk_naam: string | null;
  praktijk_keuzelijst: string | null;
  provincie_code: string | null;
  /** `tbl_provincie.omschrijving` of the code; null when the code is not in the list. */
  provincie_omschrijving: string | null;
  regio: string | null;
  functie_code: string | null;
  /** `tbl_functie.omschrijving` of the code; null when the code is not in the list. */
  functie_omschrijving: string | null;
  werktijd: string | null;
  contract_type: string | null;
  inhoud_intro: string | null;
  inhoud_profiel: string | null;
  inhoud_taken: string | null;
  inhoud_aanbod: string | null;
  inhoud_contact: string | null;
  afbeelding: string | null;
  status: number | null;
  zichtbaar: number;
  publicatiedatum: string | null;
  aangemaakt_op: string | null;
  gewijzigd_op: string | null;
  zoekt_verpleegkundige: string | null;
  /** The publication rule, evaluated by SQL against the zone's today (1/0): see PUBLISHED. */
  gepubliceerd: number;
}

/** A reference-list row (`tbl_functie` / `tbl_provincie`), columns aliased by the source. */
export interface ReferenceRow {
  code: string;
  label: string;
  actief: number;
}

// Maps, not object literals: a raw value such as "constructor" must not hit Object.prototype.
const EMPLOYMENT_TIMES = new Map<string, AllowedOf<"employment.time.value">>([
  ["Fulltime", "full_time"],
  ["Parttime", "part_time"],
  ["ParttimeFulltime", "full_or_part_time"],
]);

const CONTRACTS = new Map<string, AllowedOf<"employment.contract.value">>([
  ["Werknemer", "employee"],
  ["Zelfstandig", "self_employed"],
  ["Werknemer - zelfstandig", "employee_or_self_employed"],
]);

const STATUSES = new Map<number, AllowedOf<"status.value">>([
  [1, "created"],
  [2, "open"],
  [3, "filled"],
]);

const PRACTICE_TYPES = new Map<string, AllowedOf<"practice.type">>([
  ["praktijk", "Primary"],
  ["crm", "Secondary"],
]);

/** The raw `status` column value of a status filter (`status=open` → 2). */
export function statusCodeOf(value: AllowedOf<"status.value">): number {
  for (const [code, v] of STATUSES) if (v === value) return code;
  throw new RangeError(`no status code for ${value}`);
}

const isBlank = (text: string | null): boolean => text === null || text.trim() === "";

/**
 * The contract's `title`: first non-empty of public heading, frontend name, internal name
 * (whitespace-only counts as empty).
 */
function titleOf(row: VacancyRow): string | null {
  return [row.kop_publiek, row.naam_frontend, row.naam_intern].find((t) => !isBlank(t)) ?? null;
}

/** Exactly `nl` or `fr`; `NL`, `nl-BE`, `de`, '' and NULL all become null. */
function languageOf(raw: string | null): AllowedOf<"language"> | null {
  return raw === "nl" || raw === "fr" ? raw : null;
}

/** MySQL's zero date is "no date", never a calendar day. */
function dateOf(raw: string | null): string | null {
  return raw === null || raw === "" || raw.startsWith("0000-00-00") ? null : raw;
}

function lookup<K, V>(table: Map<K, V>, raw: K | null): V | null {
  return raw === null ? null : (table.get(raw) ?? null);
}

/**
 * Names this mapping for change detection's source digests (SweepDigests of @svc/events): a
 * sweep trusts a stored hash while the row's digest is unchanged, so a release in which
 * toVacancy maps the same row differently must change it (to-vacancy.test.ts pins it).
 */
export const VACANCY_MAPPING_VERSION = 1;

/** `toIso` converts the legacy DATETIMEs (wall-clock time in the primary system's zone). */
export function toVacancy(row: VacancyRow, toIso: LocalToIso): Vacancy {
  return {
    uuid: row.uuid,
    title: titleOf(row),
    slug: row.slug,
    teaser: row.teaser,
    language: languageOf(row.taal),
    practice: {
      legacy_reference: row.praktijk_ref,
      name: row.praktijk_naam,
      type: lookup(PRACTICE_TYPES, row.praktijk_keuzelijst),
    },
    location: {
      province: { code: row.provincie_code, label: row.provincie_omschrijving },
      region: row.regio,
      postal_code: null,
      city: null,
      country: null,
      latitude: null,
      longitude: null,
    },
    position: { code: row.functie_code, label: row.functie_omschrijving },
    employment: {
      time: { code: row.werktijd, value: lookup(EMPLOYMENT_TIMES, row.werktijd) },
      contract: { code: row.contract_type, value: lookup(CONTRACTS, row.contract_type) },
    },
    content: {
      intro: row.inhoud_intro,
      profile: row.inhoud_profiel,
      tasks: row.inhoud_taken,
      offer: row.inhoud_aanbod,
      contact: row.inhoud_contact,
    },
    image: row.afbeelding,
    status: {
      code: row.status === null ? null : String(row.status),
      value: lookup(STATUSES, row.status),
    },
    visible: Number(row.zichtbaar) === 1,
    published: Number(row.gepubliceerd) === 1,
    display_date: dateOf(row.publicatiedatum),
    created_at: toIso(row.aangemaakt_op),
    updated_at: toIso(row.gewijzigd_op),
    valid_through: null,
    seeking_nurse_code: row.zoekt_verpleegkundige,
  };
}

export function toReferenceEntry(row: ReferenceRow): ReferenceEntry {
  return { code: row.code, label: row.label, active: Number(row.actief) === 1 };
}
