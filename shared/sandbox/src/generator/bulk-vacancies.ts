/**
 * Bulk vacancies, generated lazily (benchmark scale holds hundreds of thousands): mostly ordinary
 * postings, with every oddity the vacancy field rules handle sprinkled in at low rates so filters
 * and mappers meet them in realistic proportions.
 */
import { addDays, brusselsNoonUtc } from "../brussels-time.ts";
import { BULK_ID_START } from "./bulk-practices.ts";
import type { PracticeRef } from "./bulk-practices.ts";
import { dateTimeBetween, languageValue, latestStampMs } from "./practice-fields.ts";
import type { Random } from "./random.ts";
import * as ref from "./reference-data.ts";
import type { VacatureRow } from "./rows.ts";
import { slugPath, vacancyText } from "./vacancy-text.ts";
import type { Lang, VacancyText } from "./vacancy-text.ts";

const DAY_MS = 86_400_000;
const ACTIVE_POSITIONS = ref.POSITIONS.filter((p) => p.actief).map((p) => p.functie_code);
const INACTIVE_POSITIONS = ref.POSITIONS.filter((p) => !p.actief).map((p) => p.functie_code);
const INACTIVE_PROVINCES = ref.PROVINCES.filter((p) => !p.actief).map((p) => p.provincie_code);

type Link = {
  practice: PracticeRef | null;
  columns: Pick<VacatureRow, "praktijk_ref" | "praktijk_naam" | "praktijk_keuzelijst">;
};

function practiceLink(
  random: Random,
  primary: readonly PracticeRef[],
  secondary: readonly PracticeRef[],
): Link {
  const kind = random.weighted<"primary" | "secondary" | "none" | "dangling">([
    [72, "primary"],
    [18, "secondary"],
    [6, "none"],
    [4, "dangling"],
  ]);
  const pool = kind === "primary" ? primary : kind === "secondary" ? secondary : [];
  if (pool.length === 0 || kind === "none" || kind === "dangling") {
    const dangling = kind === "dangling" || (kind !== "none" && pool.length === 0);
    return dangling
      ? {
          practice: null,
          columns: {
            praktijk_ref: random.uuid(),
            praktijk_naam: "Tandartspraktijk (opgeheven)",
            praktijk_keuzelijst: ref.CHOICE_LIST.secondary,
          },
        }
      : {
          practice: null,
          columns: { praktijk_ref: null, praktijk_naam: null, praktijk_keuzelijst: null },
        };
  }
  const practice = random.pick(pool);
  const name = random.chance(0.05) ? `${practice.name ?? "Praktijk"} BV` : practice.name;
  return {
    practice,
    columns: {
      praktijk_ref: practice.id,
      praktijk_naam: name,
      praktijk_keuzelijst: ref.CHOICE_LIST[practice.source],
    },
  };
}

function positionCode(random: Random): string | null {
  return random.weighted<() => string | null>([
    [90, () => (random.chance(0.5) ? random.pick(["TA", "TAS"]) : random.pick(ACTIVE_POSITIONS))],
    [5, () => random.pick(INACTIVE_POSITIONS)],
    [2, () => random.pick(ref.UNKNOWN_POSITION_CODES)],
    [3, () => null],
  ])();
}

function provinceCode(random: Random, practice: PracticeRef | null): string | null {
  return random.weighted<() => string | null>([
    [84, () => practice?.provinceCode ?? random.pick(ref.PROVINCES.slice(0, 11)).provincie_code],
    [3, () => random.pick(INACTIVE_PROVINCES)],
    [2, () => random.pick(ref.UNKNOWN_PROVINCE_CODES)],
    [11, () => null],
  ])();
}

/**
 * Title sources: all three filled mostly; otherwise the earlier ones are NULL or an empty string.
 */
function titleColumns(
  random: Random,
  t: VacancyText,
): Pick<VacatureRow, "kop_publiek" | "naam_frontend" | "naam_intern"> {
  const blank = (): string | null => (random.chance(0.5) ? null : "");
  const shape = random.weighted<number>([
    [62, 0],
    [22, 1],
    [14, 2],
    [2, 3],
  ]);
  return {
    kop_publiek: shape >= 1 ? blank() : t.heading,
    naam_frontend: shape >= 2 ? blank() : t.frontendName,
    naam_intern: shape >= 3 ? blank() : t.internalName,
  };
}

function employment(random: Random): Pick<VacatureRow, "werktijd" | "contract_type"> {
  return {
    werktijd: random.weighted<string | null>([
      [45, "Fulltime"],
      [30, "Parttime"],
      [17, "ParttimeFulltime"],
      [4, random.pick(ref.UNKNOWN_EMPLOYMENT_TIMES)],
      [4, null],
    ]),
    contract_type: random.weighted<string | null>([
      [55, "Werknemer"],
      [25, "Zelfstandig"],
      [12, "Werknemer - zelfstandig"],
      [4, random.pick(ref.UNKNOWN_CONTRACTS)],
      [4, null],
    ]),
  };
}

function publication(
  random: Random,
  today: string,
  todayMs: number,
): Pick<
  VacatureRow,
  "zichtbaar" | "publicatiedatum" | "aangemaakt_op" | "gewijzigd_op" | "status"
> {
  const created = todayMs - DAY_MS - random.next() * 4 * 365 * DAY_MS;
  const updatedMax = Math.min(created + 400 * DAY_MS, latestStampMs(todayMs));
  return {
    zichtbaar: random.chance(0.78) ? 1 : 0,
    publicatiedatum: random.weighted<() => string | null>([
      [50, () => null],
      [34, () => addDays(today, -random.int(1, 700))],
      [3, () => today],
      [13, () => addDays(today, random.int(1, 60))],
    ])(),
    aangemaakt_op: dateTimeBetween(random, created, created + 1000),
    gewijzigd_op: dateTimeBetween(random, created, updatedMax),
    status: random.weighted<number | null>([
      [84, 1],
      [10, 2],
      [5, 3],
      [1, null],
    ]),
  };
}

function image(random: Random, slug: string | null, id: number): string | null {
  return random.weighted<string | null>([
    [60, `uploads/vacatures/${slug?.split("/")[1] ?? id}.jpg`],
    [10, `https://cdn.example-praktijk.be/vacatures/${id}.png`],
    [5, `IMG_${1000 + (id % 9000)}.JPG`],
    [25, null],
  ]);
}

const maybe = (random: Random, value: string, pNull: number): string | null =>
  random.chance(pNull) ? null : value;

function vacancy(
  random: Random,
  id: number,
  link: Link,
  today: string,
  todayMs: number,
): VacatureRow {
  const p = link.practice;
  const lang: Lang = p?.lang ?? (random.chance(0.6) ? "nl" : "fr");
  const faker = lang === "nl" ? random.flemish : random.french;
  const functie = positionCode(random);
  const t = vacancyText(
    random,
    {
      lang,
      positionCode: functie,
      practiceName:
        link.columns.praktijk_naam ?? (lang === "nl" ? "onze praktijk" : "notre cabinet"),
      city: p?.city ?? (lang === "nl" ? "Gent" : "Namur"),
      contactName: `${faker.person.firstName()} ${faker.person.lastName()}`,
      email: p?.email ?? "jobs@example-praktijk.be",
      phone: p?.phone ?? "02 345 67 89",
    },
    random.chance(0.06),
  );
  const titles = titleColumns(random, t);
  const title = titles.kop_publiek || titles.naam_frontend || titles.naam_intern;
  const slug = title && random.chance(0.96) ? slugPath(lang, title, id) : null;
  return {
    vacature_id: id,
    uuid: random.uuid(),
    ...titles,
    slug,
    teaser: maybe(random, t.teaser, 0.15),
    taal: languageValue(random, lang, 0.03),
    ...link.columns,
    provincie_code: provinceCode(random, p),
    regio: maybe(random, t.region, 0.3),
    functie_code: functie,
    ...employment(random),
    inhoud_intro: maybe(random, t.intro, 0.03),
    inhoud_profiel: maybe(random, t.profile, 0.03),
    inhoud_taken: maybe(random, t.tasks, 0.03),
    inhoud_aanbod: maybe(random, t.offer, 0.03),
    inhoud_contact: maybe(random, t.contact, 0.03),
    afbeelding: image(random, slug, id),
    ...publication(random, today, todayMs),
    zoekt_verpleegkundige: random.chance(0.3) ? null : random.pick(ref.SEEKING_NURSE_CODES),
    verwijderd: random.chance(0.04) ? 1 : 0,
  };
}

/**
 * Lazily yields `count` bulk vacancies with ids from BULK_ID_START; practice references point into
 * `directory`.
 */
export function* bulkVacancies(
  random: Random,
  count: number,
  directory: readonly PracticeRef[],
  today: string,
): Generator<VacatureRow> {
  const todayMs = brusselsNoonUtc(today);
  const primary = directory.filter((d) => d.source === "primary");
  const secondary = directory.filter((d) => d.source === "secondary");
  for (let i = 0; i < count; i++) {
    yield vacancy(
      random,
      BULK_ID_START + i,
      practiceLink(random, primary, secondary),
      today,
      todayMs,
    );
  }
}
