/**
 * Draws for the free-text practice fields, with the variety a CRM and a legacy back office really
 * accumulate: several phone and VAT spellings, country as a code or a word or nothing, province
 * texts in two languages, the odd invalid e-mail address.
 */
import type { Faker } from "@faker-js/faker";
import { toBrusselsDateTime } from "../brussels-time.ts";
import type { Random } from "./random.ts";
import { ODD_LANGUAGES, PROVINCE_TEXTS } from "./reference-data.ts";
import { slugify } from "./vacancy-text.ts";
import type { Lang } from "./vacancy-text.ts";

const digits = (random: Random, n: number): string =>
  Array.from({ length: n }, () => random.int(0, 9)).join("");

export function phoneNumber(random: Random): string {
  const zone = random.pick(["2", "3", "9", "4", "50", "56", "11", "81", "71", "65", "87"]);
  const local = digits(random, 8 - zone.length);
  const mobile = `4${random.pick(["70", "71", "72", "75", "76", "77", "78", "79", "85", "86", "94", "95", "96", "97", "98", "99"])}${digits(random, 6)}`;
  return random.weighted<() => string>([
    [30, () => `0${zone} ${local.slice(0, -4)} ${local.slice(-4, -2)} ${local.slice(-2)}`],
    [20, () => `0${zone}/${local.slice(0, -4)}.${local.slice(-4, -2)}.${local.slice(-2)}`],
    [15, () => `+32 ${zone} ${local}`],
    [
      20,
      () => `0${mobile.slice(0, 3)} ${mobile.slice(3, 5)} ${mobile.slice(5, 7)} ${mobile.slice(7)}`,
    ],
    [10, () => `+32${mobile}`],
    [5, () => `0032${zone}${local}`],
  ])();
}

export function vatNumber(random: Random): string {
  const d = `${random.pick(["0", "1"])}${digits(random, 9)}`;
  return random.weighted<string>([
    [40, `BE${d}`],
    [30, `BE ${d.slice(0, 4)}.${d.slice(4, 7)}.${d.slice(7)}`],
    [15, `${d.slice(0, 4)}.${d.slice(4, 7)}.${d.slice(7)}`],
    [10, `BE-${d}`],
    [5, `be ${d}`],
  ]);
}

export function emailAddress(random: Random, practiceName: string): string {
  const domain = slugify(practiceName).replaceAll("-", "").slice(0, 30) || "praktijk";
  const local = random.pick(["info", "contact", "secretariaat", "praktijk", "accueil", "onthaal"]);
  return random.weighted<string>([
    [90, `${local}@${domain}.be`],
    [5, `${local.toUpperCase()}@${domain.toUpperCase()}.BE`],
    [3, `${local}@${domain}`],
    [2, `${local} @ ${domain}.be`],
  ]);
}

export function countryText(random: Random): string | null {
  return random.weighted<string | null>([
    [70, "BE"],
    [8, "België"],
    [6, "Belgique"],
    [2, "Belgium"],
    [2, "B"],
    [2, "be"],
    [10, null],
  ]);
}

export function provinceText(random: Random, provinceCode: string): string | null {
  const texts = PROVINCE_TEXTS[provinceCode] ?? [];
  if (texts.length === 0 || random.chance(0.12)) return null;
  return random.chance(0.7) ? (texts[0] as string) : random.pick(texts);
}

/**
 * A language column value: mostly the practice's language, sometimes whatever the back office held.
 */
export function languageValue(random: Random, lang: string, oddness: number): string | null {
  if (!random.chance(oddness)) return lang;
  return random.chance(0.2) ? null : random.pick(ODD_LANGUAGES);
}

export function practiceName(random: Random, faker: Faker, lang: Lang, city: string): string {
  const last = faker.person.lastName();
  const templates =
    lang === "nl"
      ? [
          `Tandartspraktijk ${last}`,
          `Groepspraktijk ${city}`,
          `Mondzorg ${city}`,
          `Tandartsen ${last} & ${faker.person.lastName()}`,
          `Dental ${city}`,
          `Orthodontie ${last}`,
          `Tandheelkundig Centrum ${city}`,
          `Praktijk ${last}`,
        ]
      : [
          `Cabinet dentaire ${last}`,
          `Centre dentaire de ${city}`,
          `Clinique dentaire ${last}`,
          `Cabinet ${last} & ${faker.person.lastName()}`,
          `Dentisterie ${city}`,
          `Centre médical ${city}`,
        ];
  return random.pick(templates);
}

/** A Brussels DATETIME at a uniformly drawn second between two instants. */
/**
 * The latest modification time the bulk generators write, from the seed day's Brussels noon: 23:00
 * the day before, so that no row of the data carries a future stamp on the day it is seeded (change
 * detection would read every such row again on every pass until the clock passes it).
 */
export function latestStampMs(todayNoonMs: number): number {
  return todayNoonMs - 13 * 3_600_000;
}

export function dateTimeBetween(random: Random, fromMs: number, toMs: number): string {
  return toBrusselsDateTime(Math.floor((fromMs + random.next() * (toMs - fromMs)) / 1000) * 1000);
}

export function htmlRegionText(lang: Lang, city: string): string {
  return lang === "nl"
    ? `<p>Actief in de regio <strong>${city}</strong> en omstreken.</p>`
    : `<p>Actif dans la région de <strong>${city}</strong> et environs.</p>`;
}

export function htmlContactText(lang: Lang, phone: string, email: string): string {
  return lang === "nl"
    ? `<p>Tel. ${phone}<br>E-mail: <a href="mailto:${email}">${email}</a></p>`
    : `<p>Tél. ${phone}<br>Courriel : <a href="mailto:${email}">${email}</a></p>`;
}
