/**
 * The fixture vacancies of the catalogue (`fixtures.vacancies`) as legacy rows: one ordinary
 * vacancy plus, per fixture, the few columns that give it its meaning. Seed-independent; only the
 * display dates move with the reference date.
 */
import { addDays } from "../brussels-time.ts";
import { fixtures } from "../fixtures.ts";
import { CHOICE_LIST } from "./reference-data.ts";
import type { VacatureRow } from "./rows.ts";
import { createRandom } from "./random.ts";
import type { Random } from "./random.ts";
import { pastedFormatting, slugPath, vacancyText } from "./vacancy-text.ts";
import type { Lang } from "./vacancy-text.ts";

const V = fixtures.vacancies;
const P = fixtures.practices;
const X = fixtures.values;
/** Fixture wording comes from its own fixed stream so it never changes with the data-set seed. */
const FIXTURE_TEXT_SEED = 7_700_001;

type Practice = { id: string | null; name: string | null; list: string | null; city: string };

const VERMEULEN: Practice = {
  id: P.primaryComplete,
  name: "Tandartspraktijk Vermeulen",
  list: CHOICE_LIST.primary,
  city: "Gent",
};

function textColumns(
  random: Random,
  lang: Lang,
  practice: Practice,
  positionCode: string | null,
): Partial<VacatureRow> {
  const t = vacancyText(
    random,
    {
      lang,
      positionCode,
      practiceName: practice.name ?? "onze praktijk",
      city: practice.city,
      contactName: lang === "nl" ? "Sofie Vermeulen" : "Claire Lambert",
      email: "jobs@example-praktijk.be",
      phone: "09 222 33 44",
    },
    false,
  );
  return {
    kop_publiek: t.heading,
    naam_frontend: t.frontendName,
    naam_intern: t.internalName,
    teaser: t.teaser,
    regio: t.region,
    inhoud_intro: t.intro,
    inhoud_profiel: t.profile,
    inhoud_taken: t.tasks,
    inhoud_aanbod: t.offer,
    inhoud_contact: t.contact,
  };
}

function baseRow(id: number, uuid: string, random: Random): VacatureRow {
  const text = textColumns(random, "nl", VERMEULEN, "TA");
  return {
    vacature_id: id,
    uuid,
    kop_publiek: null,
    naam_frontend: null,
    naam_intern: null,
    slug: null,
    teaser: null,
    taal: "nl",
    praktijk_ref: VERMEULEN.id,
    praktijk_naam: VERMEULEN.name,
    praktijk_keuzelijst: VERMEULEN.list,
    provincie_code: "OVL",
    regio: null,
    functie_code: "TA",
    werktijd: "Fulltime",
    contract_type: "Werknemer",
    inhoud_intro: null,
    inhoud_profiel: null,
    inhoud_taken: null,
    inhoud_aanbod: null,
    inhoud_contact: null,
    afbeelding: `uploads/vacatures/2024/05/vacature-${id}.jpg`,
    status: 1,
    zichtbaar: 1,
    publicatiedatum: null,
    aangemaakt_op: "2024-05-02 09:30:00",
    gewijzigd_op: "2024-05-14 10:12:00",
    zoekt_verpleegkundige: "0",
    verwijderd: 0,
    ...text,
  };
}

function practiceColumns(practice: Practice): Partial<VacatureRow> {
  return {
    praktijk_ref: practice.id,
    praktijk_naam: practice.name,
    praktijk_keuzelijst: practice.list,
  };
}

type Override = [uuid: string, columns: Partial<VacatureRow>];

/**
 * Fixtures about wording, language and codes: the columns that differ from the ordinary vacancy.
 */
function contentOverrides(random: Random): Override[] {
  const fr: Practice = {
    id: P.languageFr,
    name: "Cabinet dentaire Lambert",
    list: CHOICE_LIST.primary,
    city: "Liège",
  };
  return [
    [V.ordinary, {}],
    [
      V.titleFromPublicHeading,
      {
        kop_publiek: "Tandarts gezocht – Gent centrum",
        naam_frontend: "Tandarts Gent",
        naam_intern: "TA-2024-017",
      },
    ],
    [
      V.titleFromFrontendName,
      {
        kop_publiek: "",
        naam_frontend: "Mondhygiënist Gent",
        naam_intern: "MH-2024-003",
        functie_code: "MH",
      },
    ],
    [
      V.titleFromInternalName,
      { kop_publiek: null, naam_frontend: "", naam_intern: "TAS-2023-112 assistent Gent" },
    ],
    [V.titleMissing, { kop_publiek: null, naam_frontend: null, naam_intern: "", slug: null }],
    [
      V.languageFr,
      {
        taal: "fr",
        ...practiceColumns(fr),
        provincie_code: "LUI",
        ...textColumns(random, "fr", fr, "TA"),
      },
    ],
    [
      V.languageOther,
      {
        taal: "de",
        kop_publiek: "Zahnarzt (m/w/d) in Eupen",
        slug: null,
        ...practiceColumns({
          id: P.languageOther,
          name: "Zahnarztpraxis Schmitz",
          list: CHOICE_LIST.primary,
          city: "Eupen",
        }),
        provincie_code: "LUI",
      },
    ],
    [V.languageEmpty, { taal: "" }],
    [V.slugMissing, { slug: null }],
    [V.provinceUnknown, { provincie_code: X.unknownProvinceCode }],
    [
      V.provinceInactive,
      {
        provincie_code: X.inactiveProvinceCode,
        aangemaakt_op: "1994-11-03 10:00:00",
        gewijzigd_op: "2001-02-12 16:20:00",
      },
    ],
    [V.provinceAbsent, { provincie_code: null }],
    [V.positionUnknown, { functie_code: X.unknownPositionCode }],
    [V.positionInactive, { functie_code: X.inactivePositionCode }],
    [V.positionAbsent, { functie_code: null }],
    [V.employmentFulltime, { werktijd: "Fulltime" }],
    [V.employmentParttime, { werktijd: "Parttime" }],
    [V.employmentParttimeFulltime, { werktijd: "ParttimeFulltime" }],
    [V.employmentTimeUnknown, { werktijd: X.unknownEmploymentTime }],
    [V.contractWerknemer, { contract_type: "Werknemer" }],
    [V.contractZelfstandig, { contract_type: "Zelfstandig" }],
    [V.contractWerknemerZelfstandig, { contract_type: "Werknemer - zelfstandig" }],
    [V.contractUnknown, { contract_type: X.unknownContract }],
  ];
}

/** Fixtures about status, publication, practice references and timestamps. */
function lifecycleOverrides(today: string): Override[] {
  const secondary: Practice = {
    id: P.secondaryOpenEnded,
    name: "Mondzorgcentrum Coupure",
    list: CHOICE_LIST.secondary,
    city: "Gent",
  };
  return [
    [V.statusCreated, { status: 1 }],
    [V.statusOpen, { status: 2 }],
    [V.statusFilled, { status: 3 }],
    [V.invisible, { zichtbaar: 0 }],
    [V.invisibleWithPastDisplayDate, { zichtbaar: 0, publicatiedatum: addDays(today, -10) }],
    [V.displayDateAbsent, { publicatiedatum: null }],
    [V.displayDatePast, { publicatiedatum: addDays(today, -1) }],
    [V.displayDateToday, { publicatiedatum: today }],
    [V.displayDateFuture, { publicatiedatum: addDays(today, 1) }],
    [V.softDeleted, { verwijderd: 1, gewijzigd_op: "2024-06-03 11:00:00" }],
    [V.practicePrimary, {}],
    [V.practiceSecondary, practiceColumns(secondary)],
    [V.practiceNone, practiceColumns({ id: null, name: null, list: null, city: "Gent" })],
    [
      V.practiceDangling,
      practiceColumns({
        id: X.danglingPracticeId,
        name: "Tandartspraktijk Opgeheven",
        list: CHOICE_LIST.secondary,
        city: "Gent",
      }),
    ],
    [
      V.practiceLegacyId,
      practiceColumns({
        id: P.legacyIdWithSlash,
        name: "Tandartsenassociatie Kortrijk",
        list: CHOICE_LIST.primary,
        city: "Kortrijk",
      }),
    ],
    [
      V.practiceTypeSnapshotStale,
      practiceColumns({
        id: P.collisionPrimaryWins,
        name: "Tandartsencentrum Zuid",
        list: CHOICE_LIST.secondary,
        city: "Gent",
      }),
    ],
    [V.practiceNameSnapshotDiffers, { praktijk_naam: "Tandartspraktijk Vermeulen-De Smet" }],
    [
      V.pastedFormatting,
      {
        inhoud_intro: pastedFormatting(
          "Wij zoeken een <b>tandarts</b> voor onze praktijk in Gent.",
        ),
      },
    ],
    [
      V.dstSpringForward,
      { aangemaakt_op: "2024-03-31 01:45:00", gewijzigd_op: "2024-03-31 03:15:00" },
    ],
    [V.dstFallBack, { aangemaakt_op: "2024-10-27 01:45:00", gewijzigd_op: "2024-10-27 03:15:00" }],
    [
      V.dstFallBackAmbiguous,
      { aangemaakt_op: "2024-10-26 18:00:00", gewijzigd_op: "2024-10-27 02:30:00" },
    ],
    [V.timestampsMissing, { aangemaakt_op: null, gewijzigd_op: null }],
    [V.seekingNurseCodeSet, { zoekt_verpleegkundige: "J" }],
    [V.imageMissing, { afbeelding: null }],
    [
      V.imageAbsoluteUrl,
      { afbeelding: "https://cdn.example-praktijk.be/img/vacature%20tandarts.JPG" },
    ],
    [
      V.updatedLongAgo,
      { aangemaakt_op: "2018-12-03 09:00:00", gewijzigd_op: "2019-01-15 08:00:00" },
    ],
  ];
}

/**
 * Unless a fixture sets its own slug, it follows the title and the language like the public site's.
 */
function withSlug(row: VacatureRow, columns: Partial<VacatureRow>): VacatureRow {
  if ("slug" in columns) return row;
  const title = [row.kop_publiek, row.naam_frontend, row.naam_intern].find((t) => t) ?? "vacature";
  return { ...row, slug: slugPath(row.taal === "fr" ? "fr" : "nl", title, row.vacature_id) };
}

/**
 * The fixture vacancies as rows; `vacature_id` runs from 1 in catalogue order, below the bulk
 * range.
 */
export function fixtureVacancies(today: string): VacatureRow[] {
  const random = createRandom(FIXTURE_TEXT_SEED, "vacancies");
  return [...contentOverrides(random), ...lifecycleOverrides(today)].map(([uuid, columns], index) =>
    withSlug({ ...baseRow(index + 1, uuid, random), ...columns }, columns),
  );
}
