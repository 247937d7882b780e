/**
 * Row shapes of the legacy tables, keyed by legacy column name, and each table's column order for
 * inserts. DATE values are `YYYY-MM-DD`, DATETIME values `YYYY-MM-DD HH:MM:SS` (Brussels wall
 * clock), DECIMAL values strings, booleans 0/1: exactly what the database stores.
 */
import type { LegacyTable } from "@svc/legacy";

export type Flag = 0 | 1;

export type ProvincieRow = {
  provincie_code: string;
  omschrijving: string;
  actief: Flag;
  volgorde: number;
};

export type FunctieRow = {
  functie_code: string;
  omschrijving: string;
  actief: Flag;
  volgorde: number;
};

export type PostcodeRow = {
  postcode: string;
  gemeente: string;
  provincie_code: string | null;
  breedtegraad: string;
  lengtegraad: string;
};

export type CrmBedrijfRow = {
  crm_id: string;
  naam: string | null;
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
  taal: string | null;
  periode_start: string | null;
  periode_stop: string | null;
  gewijzigd_op: string;
};

export type PraktijkRow = {
  praktijk_id: number;
  crm_ref: string;
  naam: string | null;
  actief: Flag;
  zichtbaar: Flag;
  taal: string | null;
  logo: string | null;
  regio_tekst: string | null;
  contact_tekst: string | null;
  coach_mdw_ref: string | null;
  aangemaakt_op: string | null;
  gewijzigd_op: string;
};

export type PraktijkTdmRow = {
  tdm_koppeling_id: number;
  praktijk_id: number;
  tdm_ref: string;
  aangemaakt_op: string | null;
};

export type VacatureRow = {
  vacature_id: number;
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
  regio: string | null;
  functie_code: string | null;
  werktijd: string | null;
  contract_type: string | null;
  inhoud_intro: string | null;
  inhoud_profiel: string | null;
  inhoud_taken: string | null;
  inhoud_aanbod: string | null;
  inhoud_contact: string | null;
  afbeelding: string | null;
  status: number | null;
  zichtbaar: Flag;
  publicatiedatum: string | null;
  aangemaakt_op: string | null;
  gewijzigd_op: string | null;
  zoekt_verpleegkundige: string | null;
  verwijderd: Flag;
};

export type RowOf = {
  tbl_provincie: ProvincieRow;
  tbl_functie: FunctieRow;
  tbl_postcode: PostcodeRow;
  crm_bedrijf: CrmBedrijfRow;
  tbl_praktijk: PraktijkRow;
  tbl_praktijk_tdm: PraktijkTdmRow;
  tbl_vacature: VacatureRow;
};

export type LegacyRow = RowOf[LegacyTable];

/** Every column of every table, in DDL order; a test checks this against information_schema. */
export const COLUMNS: { readonly [T in LegacyTable]: ReadonlyArray<keyof RowOf[T]> } = {
  tbl_provincie: ["provincie_code", "omschrijving", "actief", "volgorde"],
  tbl_functie: ["functie_code", "omschrijving", "actief", "volgorde"],
  tbl_postcode: ["postcode", "gemeente", "provincie_code", "breedtegraad", "lengtegraad"],
  crm_bedrijf: [
    "crm_id",
    "naam",
    "alias",
    "organisatie_type",
    "btw_nummer",
    "straat",
    "postcode",
    "gemeente",
    "provincie",
    "land",
    "email",
    "telefoon",
    "taal",
    "periode_start",
    "periode_stop",
    "gewijzigd_op",
  ],
  tbl_praktijk: [
    "praktijk_id",
    "crm_ref",
    "naam",
    "actief",
    "zichtbaar",
    "taal",
    "logo",
    "regio_tekst",
    "contact_tekst",
    "coach_mdw_ref",
    "aangemaakt_op",
    "gewijzigd_op",
  ],
  tbl_praktijk_tdm: ["tdm_koppeling_id", "praktijk_id", "tdm_ref", "aangemaakt_op"],
  tbl_vacature: [
    "vacature_id",
    "uuid",
    "kop_publiek",
    "naam_frontend",
    "naam_intern",
    "slug",
    "teaser",
    "taal",
    "praktijk_ref",
    "praktijk_naam",
    "praktijk_keuzelijst",
    "provincie_code",
    "regio",
    "functie_code",
    "werktijd",
    "contract_type",
    "inhoud_intro",
    "inhoud_profiel",
    "inhoud_taken",
    "inhoud_aanbod",
    "inhoud_contact",
    "afbeelding",
    "status",
    "zichtbaar",
    "publicatiedatum",
    "aangemaakt_op",
    "gewijzigd_op",
    "zoekt_verpleegkundige",
    "verwijderd",
  ],
};

/** Primary key column per table: the dump order for determinism checks and the pagination key. */
export const PRIMARY_KEYS: { readonly [T in LegacyTable]: keyof RowOf[T] } = {
  tbl_provincie: "provincie_code",
  tbl_functie: "functie_code",
  tbl_postcode: "postcode",
  crm_bedrijf: "crm_id",
  tbl_praktijk: "praktijk_id",
  tbl_praktijk_tdm: "tdm_koppeling_id",
  tbl_vacature: "vacature_id",
};
