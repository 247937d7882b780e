/**
 * Fixed reference content: the two reference lists, the postal-code areas with their coordinates,
 * and the pools the bulk generator draws from. Hand-written rather than faked so provinces,
 * municipalities, postal codes and coordinates agree with each other.
 */
import type { FunctieRow, PostcodeRow, ProvincieRow } from "./rows.ts";

/**
 * Province reference list. `BRA` (Brabant, split in 1995) and `NL` stay for old vacancies but are
 * not selectable.
 */
export const PROVINCES: readonly ProvincieRow[] = [
  { provincie_code: "ANT", omschrijving: "Antwerpen", actief: 1, volgorde: 10 },
  { provincie_code: "LIM", omschrijving: "Limburg", actief: 1, volgorde: 20 },
  { provincie_code: "OVL", omschrijving: "Oost-Vlaanderen", actief: 1, volgorde: 30 },
  { provincie_code: "WVL", omschrijving: "West-Vlaanderen", actief: 1, volgorde: 40 },
  { provincie_code: "VBR", omschrijving: "Vlaams-Brabant", actief: 1, volgorde: 50 },
  {
    provincie_code: "BRU",
    omschrijving: "Brussels Hoofdstedelijk Gewest",
    actief: 1,
    volgorde: 60,
  },
  { provincie_code: "WBR", omschrijving: "Waals-Brabant", actief: 1, volgorde: 70 },
  { provincie_code: "HEN", omschrijving: "Henegouwen", actief: 1, volgorde: 80 },
  { provincie_code: "LUI", omschrijving: "Luik", actief: 1, volgorde: 90 },
  { provincie_code: "LUX", omschrijving: "Luxemburg", actief: 1, volgorde: 100 },
  { provincie_code: "NAM", omschrijving: "Namen", actief: 1, volgorde: 110 },
  { provincie_code: "BRA", omschrijving: "Brabant", actief: 0, volgorde: 900 },
  { provincie_code: "NL", omschrijving: "Nederland", actief: 0, volgorde: 910 },
];

/** Position reference list; the inactive entries are still referenced by older vacancies. */
export const POSITIONS: readonly FunctieRow[] = [
  { functie_code: "TA", omschrijving: "Tandarts", actief: 1, volgorde: 10 },
  { functie_code: "TAS", omschrijving: "Tandartsassistent(e)", actief: 1, volgorde: 20 },
  { functie_code: "MH", omschrijving: "Mondhygiënist(e)", actief: 1, volgorde: 30 },
  { functie_code: "ORTHO", omschrijving: "Orthodontist", actief: 1, volgorde: 40 },
  { functie_code: "PARO", omschrijving: "Parodontoloog", actief: 1, volgorde: 50 },
  { functie_code: "IMPL", omschrijving: "Implantoloog", actief: 1, volgorde: 60 },
  { functie_code: "KAAK", omschrijving: "Kaakchirurg", actief: 1, volgorde: 70 },
  { functie_code: "VPK", omschrijving: "Verpleegkundige", actief: 1, volgorde: 80 },
  { functie_code: "PM", omschrijving: "Praktijkmanager", actief: 1, volgorde: 90 },
  { functie_code: "ONTH", omschrijving: "Onthaalmedewerker", actief: 1, volgorde: 100 },
  { functie_code: "STER", omschrijving: "Sterilisatiemedewerker", actief: 1, volgorde: 110 },
  { functie_code: "TT", omschrijving: "Tandtechnicus", actief: 0, volgorde: 900 },
  { functie_code: "STAG", omschrijving: "Stagiair tandarts", actief: 0, volgorde: 910 },
  { functie_code: "SEC", omschrijving: "Secretariaatsmedewerker", actief: 0, volgorde: 920 },
];

export const UNKNOWN_PROVINCE_CODES = ["LIE", "ZLD", "99"] as const;
export const UNKNOWN_POSITION_CODES = ["DH", "TANDARTS", "0"] as const;

/** How the CRM spells each province in its free-text field (Dutch, French, then odd variants). */
export const PROVINCE_TEXTS: Readonly<Record<string, readonly string[]>> = {
  ANT: ["Antwerpen", "Anvers", "Prov. Antwerpen", "ANTWERPEN"],
  LIM: ["Limburg", "Limbourg", "Prov. Limburg"],
  OVL: ["Oost-Vlaanderen", "Flandre-Orientale", "Oost Vlaanderen", "O.-Vl."],
  WVL: ["West-Vlaanderen", "Flandre-Occidentale", "West Vlaanderen"],
  VBR: ["Vlaams-Brabant", "Brabant flamand", "Vlaams Brabant"],
  BRU: ["Brussel", "Bruxelles", "Brussels Hoofdstedelijk Gewest", "Région de Bruxelles-Capitale"],
  WBR: ["Brabant wallon", "Waals-Brabant", "Brabant Wallon"],
  HEN: ["Hainaut", "Henegouwen", "HAINAUT"],
  LUI: ["Liège", "Luik", "Liege", "Prov. de Liège"],
  LUX: ["Luxembourg", "Luxemburg", "Province de Luxembourg"],
  NAM: ["Namur", "Namen", "Prov. Namur"],
};

type Area = readonly [
  postcode: string,
  gemeente: string,
  provincie: string,
  lat: number,
  lng: number,
  lang: "nl" | "fr" | "de",
];

const AREAS: readonly Area[] = [
  ["1000", "Brussel", "BRU", 50.846557, 4.351697, "fr"],
  ["1030", "Schaerbeek", "BRU", 50.867627, 4.373666, "fr"],
  ["1050", "Ixelles", "BRU", 50.827201, 4.3722, "fr"],
  ["1080", "Molenbeek-Saint-Jean", "BRU", 50.855, 4.32, "fr"],
  ["1180", "Uccle", "BRU", 50.8, 4.333333, "fr"],
  ["1200", "Woluwe-Saint-Lambert", "BRU", 50.843, 4.428, "fr"],
  ["1090", "Jette", "BRU", 50.8776, 4.3264, "nl"],
  ["1300", "Wavre", "WBR", 50.716999, 4.601, "fr"],
  ["1348", "Louvain-la-Neuve", "WBR", 50.6681, 4.6118, "fr"],
  ["1400", "Nivelles", "WBR", 50.5983, 4.3285, "fr"],
  ["1500", "Halle", "VBR", 50.7339, 4.2345, "nl"],
  ["1800", "Vilvoorde", "VBR", 50.9281, 4.4245, "nl"],
  ["3000", "Leuven", "VBR", 50.8798, 4.7005, "nl"],
  ["3300", "Tienen", "VBR", 50.8073, 4.9378, "nl"],
  ["3290", "Diest", "VBR", 50.9893, 5.0506, "nl"],
  ["2000", "Antwerpen", "ANT", 51.2194, 4.4025, "nl"],
  ["2018", "Antwerpen", "ANT", 51.204, 4.41, "nl"],
  ["2100", "Deurne", "ANT", 51.22, 4.465, "nl"],
  ["2200", "Herentals", "ANT", 51.1767, 4.8364, "nl"],
  ["2300", "Turnhout", "ANT", 51.3227, 4.9447, "nl"],
  ["2400", "Mol", "ANT", 51.1911, 5.1166, "nl"],
  ["2500", "Lier", "ANT", 51.1311, 4.57, "nl"],
  ["2600", "Berchem", "ANT", 51.19, 4.43, "nl"],
  ["2800", "Mechelen", "ANT", 51.0259, 4.4776, "nl"],
  ["2900", "Schoten", "ANT", 51.25, 4.5, "nl"],
  ["3500", "Hasselt", "LIM", 50.9307, 5.3325, "nl"],
  ["3600", "Genk", "LIM", 50.965, 5.5008, "nl"],
  ["3800", "Sint-Truiden", "LIM", 50.816, 5.1866, "nl"],
  ["3900", "Pelt", "LIM", 51.22, 5.42, "nl"],
  ["3700", "Tongeren", "LIM", 50.7805, 5.4642, "nl"],
  ["9000", "Gent", "OVL", 51.0543, 3.7174, "nl"],
  ["9100", "Sint-Niklaas", "OVL", 51.165, 4.1434, "nl"],
  ["9200", "Dendermonde", "OVL", 51.0286, 4.101, "nl"],
  ["9300", "Aalst", "OVL", 50.9378, 4.0403, "nl"],
  ["9400", "Ninove", "OVL", 50.8282, 4.0244, "nl"],
  ["9600", "Ronse", "OVL", 50.75, 3.6, "nl"],
  ["9700", "Oudenaarde", "OVL", 50.8439, 3.6097, "nl"],
  ["8000", "Brugge", "WVL", 51.2093, 3.2247, "nl"],
  ["8300", "Knokke-Heist", "WVL", 51.35, 3.2667, "nl"],
  ["8400", "Oostende", "WVL", 51.2154, 2.9275, "nl"],
  ["8500", "Kortrijk", "WVL", 50.8279, 3.2649, "nl"],
  ["8700", "Tielt", "WVL", 50.999, 3.327, "nl"],
  ["8800", "Roeselare", "WVL", 50.9461, 3.1227, "nl"],
  ["8900", "Ieper", "WVL", 50.8514, 2.8857, "nl"],
  ["4000", "Liège", "LUI", 50.6326, 5.5797, "fr"],
  ["4500", "Huy", "LUI", 50.5183, 5.2399, "fr"],
  ["4800", "Verviers", "LUI", 50.5891, 5.8623, "fr"],
  ["4700", "Eupen", "LUI", 50.63, 6.03, "de"],
  ["4780", "Sankt Vith", "LUI", 50.2833, 6.1267, "de"],
  ["5000", "Namur", "NAM", 50.4674, 4.872, "fr"],
  ["5500", "Dinant", "NAM", 50.2606, 4.9122, "fr"],
  ["6000", "Charleroi", "HEN", 50.4108, 4.4446, "fr"],
  ["7000", "Mons", "HEN", 50.4542, 3.9523, "fr"],
  ["7100", "La Louvière", "HEN", 50.48, 4.187, "fr"],
  ["7500", "Tournai", "HEN", 50.6056, 3.3878, "fr"],
  ["6600", "Bastogne", "LUX", 50.0, 5.7167, "fr"],
  ["6700", "Arlon", "LUX", 49.6833, 5.8167, "fr"],
  ["6900", "Marche-en-Famenne", "LUX", 50.2268, 5.3442, "fr"],
];

export type PostalArea = {
  postcode: string;
  gemeente: string;
  provincieCode: string;
  lat: number;
  lng: number;
  lang: "nl" | "fr" | "de";
};

export const POSTAL_AREAS: readonly PostalArea[] = AREAS.map(
  ([postcode, gemeente, provincieCode, lat, lng, lang]) => ({
    postcode,
    gemeente,
    provincieCode,
    lat,
    lng,
    lang,
  }),
);

export function postcodeRows(): PostcodeRow[] {
  return POSTAL_AREAS.map((a) => ({
    postcode: a.postcode,
    gemeente: a.gemeente,
    provincie_code: a.provincieCode,
    breedtegraad: a.lat.toFixed(6),
    lengtegraad: a.lng.toFixed(6),
  }));
}

/** Addresses outside the postal-code table: they exist, but have no coordinates. */
export const FOREIGN_AREAS = [
  { postcode: "4811 AB", gemeente: "Breda", land: "Nederland", provincie: "Noord-Brabant" },
  { postcode: "4611 AA", gemeente: "Bergen op Zoom", land: "NL", provincie: "Noord-Brabant" },
  { postcode: "59000", gemeente: "Lille", land: "France", provincie: "Nord" },
] as const;

export const ORGANISATION_TYPES = [
  "Groepspraktijk",
  "Solopraktijk",
  "BV",
  "BVBA",
  "CommV",
  "SRL",
  "SPRL",
  "ASBL",
  "VZW",
  "Ziekenhuis",
  "Polikliniek",
  "Cabinet individuel",
  "groepspraktijk",
  "Associatie",
  "",
] as const;

export const EMPLOYMENT_TIMES = ["Fulltime", "Parttime", "ParttimeFulltime"] as const;
export const UNKNOWN_EMPLOYMENT_TIMES = ["Voltijds", "fulltime", "Halftime"] as const;
export const CONTRACTS = ["Werknemer", "Zelfstandig", "Werknemer - zelfstandig"] as const;
export const UNKNOWN_CONTRACTS = ["Interim", "Werknemer-zelfstandig", "Freelance"] as const;

/**
 * Observed values of the unexplained "seeking nurse" column; meaning unconfirmed, do not interpret.
 */
export const SEEKING_NURSE_CODES = ["0", "1", "J", "N", "2", ""] as const;

/** Raw values of the vacancy form's practice choice list (the API's `practice.type`). */
export const CHOICE_LIST = { primary: "praktijk", secondary: "crm" } as const;

/** Languages outside nl/fr that the legacy columns really contain. */
export const ODD_LANGUAGES = ["de", "en", "", "NL", "nl-BE"] as const;

/** The CRM's "no end" date, passed through unchanged by the API. */
export const OPEN_ENDED = "2999-12-31";
