/**
 * The fixture practices of the catalogue (`fixtures.practices`) as legacy rows. Hand-written and
 * seed-independent; only the period dates that give a secondary practice its meaning move with the
 * reference date.
 */
import { addDays } from "../brussels-time.ts";
import { fixtures } from "../fixtures.ts";
import type { CrmBedrijfRow, PraktijkRow, PraktijkTdmRow } from "./rows.ts";
import { OPEN_ENDED } from "./reference-data.ts";

const P = fixtures.practices;
const STAMP = "2024-05-14 10:12:00";

type PracticeSpec = {
  id: string;
  name: string;
  /** Overrides for each primary row; omitted for a secondary-only practice. */
  rows?: Array<Partial<PraktijkRow>>;
  /** Overrides for the CRM row; `null` means no CRM row. */
  crm?: Partial<CrmBedrijfRow> | null;
  tdm?: string[];
};

export type PracticeTables = {
  crm: CrmBedrijfRow[];
  praktijk: PraktijkRow[];
  tdm: PraktijkTdmRow[];
};

function crmRow(spec: PracticeSpec): CrmBedrijfRow {
  return {
    crm_id: spec.id,
    naam: spec.name,
    alias: null,
    organisatie_type: "Groepspraktijk",
    btw_nummer: "BE0412.345.678",
    straat: "Kortrijksesteenweg 112",
    postcode: "9000",
    gemeente: "Gent",
    provincie: "Oost-Vlaanderen",
    land: "BE",
    email: "info@example-praktijk.be",
    telefoon: "09 222 33 44",
    taal: "nl",
    periode_start: "2015-01-01",
    periode_stop: OPEN_ENDED,
    gewijzigd_op: STAMP,
    ...spec.crm,
  };
}

function praktijkRow(spec: PracticeSpec, id: number, overrides: Partial<PraktijkRow>): PraktijkRow {
  return {
    praktijk_id: id,
    crm_ref: spec.id,
    naam: spec.name,
    actief: 1,
    zichtbaar: 1,
    taal: "nl",
    logo: `logos/praktijk-${id}.png`,
    regio_tekst: "<p>Regio <strong>Gent</strong> en omstreken</p>",
    contact_tekst: "<p>Bel ons op 09 222 33 44<br>of mail naar info@example-praktijk.be</p>",
    coach_mdw_ref: "MDW0007",
    aangemaakt_op: "2016-02-03 09:00:00",
    gewijzigd_op: STAMP,
    ...overrides,
  };
}

/** Primary practices about source precedence, rows, state and language. */
function primarySpecs(today: string): PracticeSpec[] {
  return [
    {
      id: P.collisionPrimaryWins,
      name: "TC Zuid",
      rows: [{}],
      tdm: ["TDM100001"],
      crm: { naam: "Tandartsencentrum Zuid", taal: "fr", periode_stop: addDays(today, -1) },
    },
    {
      id: P.primaryComplete,
      name: "Tandartspraktijk Vermeulen",
      rows: [{}],
      crm: { alias: "TP Vermeulen" },
      tdm: ["TDM100002"],
    },
    { id: P.primaryWithoutCrmRow, name: "Mondzorg Oud-Berchem", rows: [{}], crm: null },
    {
      id: P.multipleActiveRows,
      name: "Groepspraktijk Kouter",
      rows: [{}, { gewijzigd_op: "2024-06-01 08:00:00" }],
      crm: {},
    },
    {
      id: P.oneActiveOneInactiveRow,
      name: "Praktijk Ter Heide",
      rows: [{ actief: 0, zichtbaar: 0 }, {}],
      crm: {},
    },
    { id: P.primaryInactive, name: "Tandartsen Maes & Claes", rows: [{ actief: 0 }], crm: {} },
    { id: P.primaryInvisible, name: "Mondzorg Leiedal", rows: [{ zichtbaar: 0 }], crm: {} },
    {
      id: P.nameFromPrimaryCopy,
      name: "Dental Care Sint-Pieters",
      rows: [{}],
      crm: { naam: null },
    },
    {
      id: P.languageFr,
      name: "Cabinet dentaire Lambert",
      rows: [{ taal: "fr" }],
      crm: {
        straat: "Rue Saint-Gilles 45",
        postcode: "4000",
        gemeente: "Liège",
        provincie: "Liège",
        taal: "fr",
        telefoon: "04/223.45.67",
      },
    },
    {
      id: P.languageOther,
      name: "Zahnarztpraxis Schmitz",
      rows: [{ taal: "de" }],
      crm: {
        straat: "Hookstraße 12",
        postcode: "4700",
        gemeente: "Eupen",
        provincie: "Lüttich",
        taal: "de",
      },
    },
  ];
}

/** Primary practices about address, contact, TDM and id-format rules. */
function primaryDataSpecs(): PracticeSpec[] {
  return [
    { id: P.languageEmpty, name: "Praktijk Overpoort", rows: [{ taal: "" }], crm: {} },
    { id: P.languageMissing, name: "Mondzorg Ledeberg", rows: [{ taal: null }], crm: {} },
    {
      id: P.missingPostalCode,
      name: "Tandartspraktijk Wijnaert",
      rows: [{}],
      crm: { postcode: null },
    },
    {
      id: P.postalCodeNotInAreaTable,
      name: "Tandartsenpraktijk Ginneken",
      rows: [{}],
      crm: {
        straat: "Ginnekenweg 3",
        postcode: "4811 AB",
        gemeente: "Breda",
        provincie: "Noord-Brabant",
        land: "Nederland",
        btw_nummer: "NL812345678B01",
      },
    },
    {
      id: P.countryNotIso,
      name: "Tandartspraktijk Blaarmeersen",
      rows: [{}],
      crm: { land: "België" },
    },
    { id: P.countryMissing, name: "Praktijk Nieuwe Vaart", rows: [{}], crm: { land: null } },
    { id: P.missingVat, name: "Tandarts Desmet", rows: [{}], crm: { btw_nummer: null } },
    { id: P.provinceTextMissing, name: "Mondzorg Muide", rows: [{}], crm: { provincie: null } },
    {
      id: P.tdmLinksMany,
      name: "Tandheelkundig Centrum Rabot",
      rows: [{}],
      crm: {},
      tdm: ["TDM100019", "TDM100020", "TDM100021"],
    },
    { id: P.tdmLinksNone, name: "Praktijk Brugse Poort", rows: [{}], crm: {} },
    { id: P.sharedNameFirst, name: fixtures.values.sharedPracticeName, rows: [{}], crm: {} },
    {
      id: P.sharedNameSecond,
      name: fixtures.values.sharedPracticeName,
      rows: [{}],
      crm: {
        straat: "Grote Markt 7",
        postcode: "2000",
        gemeente: "Antwerpen",
        provincie: "Antwerpen",
      },
    },
    {
      id: P.presentationEmpty,
      name: "Tandartspraktijk Dampoort",
      rows: [{ logo: null, regio_tekst: null, contact_tekst: null, coach_mdw_ref: null }],
      crm: {},
    },
    {
      id: P.legacyIdWithSlash,
      name: "Tandartsenassociatie Kortrijk",
      rows: [{ aangemaakt_op: "2009-03-02 14:00:00" }],
      crm: null,
      tdm: ["TDM000117"],
    },
    {
      id: P.legacyIdWithSpace,
      name: "Praktijk Dr. Verstraete",
      rows: [{ aangemaakt_op: "2006-11-20 11:30:00" }],
      crm: null,
    },
    {
      id: P.legacyIdNumeric,
      name: "Cabinet Dr. Dubois",
      rows: [{ taal: "fr", aangemaakt_op: "2004-01-05 08:15:00" }],
      crm: null,
    },
  ];
}

function secondarySpecs(today: string): PracticeSpec[] {
  return [
    {
      id: P.secondaryOpenEnded,
      name: "Mondzorgcentrum Coupure",
      crm: { periode_start: "2019-09-01" },
    },
    {
      id: P.secondaryStopped,
      name: "Tandartspraktijk Oude Dokken",
      crm: { periode_stop: addDays(today, -1) },
    },
    {
      id: P.secondaryFutureStart,
      name: "Tandartspraktijk Nieuw Gent",
      crm: { periode_start: addDays(today, 1) },
    },
    { id: P.secondaryStartsToday, name: "Dental Clinic Sluizeken", crm: { periode_start: today } },
    { id: P.secondaryStopsToday, name: "Praktijk Zuidpark", crm: { periode_stop: today } },
    {
      id: P.secondaryPeriodMissing,
      name: "Mondzorg Watersportbaan",
      crm: { periode_start: null, periode_stop: null },
    },
    {
      id: P.secondaryLanguageFr,
      name: "Centre dentaire de Namur",
      crm: {
        straat: "Rue de Fer 20",
        postcode: "5000",
        gemeente: "Namur",
        provincie: "Namur",
        taal: "fr",
        telefoon: "+32 81 22 33 44",
      },
    },
    {
      id: P.secondaryLanguageOther,
      name: "Brussels Dental Studio",
      crm: {
        straat: "Avenue Louise 250",
        postcode: "1050",
        gemeente: "Ixelles",
        provincie: "Bruxelles",
        taal: "en",
        btw_nummer: "BE 0687.123.456",
      },
    },
  ];
}

/** The fixture practices as rows. Primary row ids start at 1 and stay below the bulk range. */
export function fixturePractices(today: string): PracticeTables {
  const tables: PracticeTables = { crm: [], praktijk: [], tdm: [] };
  for (const spec of [...primarySpecs(today), ...primaryDataSpecs(), ...secondarySpecs(today)]) {
    if (spec.crm !== null) tables.crm.push(crmRow(spec));
    for (const overrides of spec.rows ?? []) {
      const row = praktijkRow(spec, tables.praktijk.length + 1, overrides);
      tables.praktijk.push(row);
      for (const ref of row.actief ? (spec.tdm ?? []) : []) {
        tables.tdm.push({
          tdm_koppeling_id: tables.tdm.length + 1,
          praktijk_id: row.praktijk_id,
          tdm_ref: ref,
          aangemaakt_op: STAMP,
        });
      }
    }
  }
  return tables;
}
