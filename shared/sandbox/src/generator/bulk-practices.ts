/**
 * Bulk practices: primary-system practices (with or without a CRM row, sometimes with more than
 * one primary row, UUID or older ids) and secondary-source practices (CRM rows alone, with every
 * kind of period). Ids and row numbers live above the fixture ranges.
 */
import type { Faker } from "@faker-js/faker";
import { addDays, brusselsNoonUtc, toBrusselsDateTime } from "../brussels-time.ts";
import type { PracticeTables } from "./fixture-practices.ts";
import * as fields from "./practice-fields.ts";
import type { Random } from "./random.ts";
import { FOREIGN_AREAS, OPEN_ENDED, ORGANISATION_TYPES, POSTAL_AREAS } from "./reference-data.ts";
import type { CrmBedrijfRow, PraktijkRow } from "./rows.ts";
import type { Lang } from "./vacancy-text.ts";

export const BULK_ID_START = 10_001;
const YEAR_MS = 365 * 86_400_000;

/** What a vacancy needs to know about a practice it points at. */
export type PracticeRef = {
  id: string;
  name: string | null;
  lang: Lang;
  city: string;
  provinceCode: string | null;
  source: "primary" | "secondary";
  email: string;
  phone: string;
};

export type BulkPractices = PracticeTables & { directory: PracticeRef[] };

type Draft = PracticeRef & {
  faker: Faker;
  rawLang: string;
  postcode: string;
  country: string | null;
  provinceText: string | null;
};

function draftPractice(random: Random, id: string, source: PracticeRef["source"]): Draft {
  const foreign = random.chance(0.03) ? random.pick(FOREIGN_AREAS) : null;
  const area = random.pick(POSTAL_AREAS);
  const rawLang = area.provincieCode === "BRU" ? random.pick(["nl", "fr"]) : area.lang;
  const lang: Lang = rawLang === "nl" ? "nl" : "fr";
  const faker = lang === "fr" ? random.french : random.chance(0.1) ? random.dutch : random.flemish;
  const city = foreign?.gemeente ?? area.gemeente;
  const name = fields.practiceName(random, faker, lang, city);
  return {
    id,
    name,
    lang,
    city,
    source,
    faker,
    rawLang,
    provinceCode: foreign ? null : area.provincieCode,
    postcode: foreign?.postcode ?? area.postcode,
    country: foreign ? foreign.land : fields.countryText(random),
    provinceText: foreign ? foreign.provincie : fields.provinceText(random, area.provincieCode),
    email: fields.emailAddress(random, name),
    phone: fields.phoneNumber(random),
  };
}

function crmRow(
  random: Random,
  d: Draft,
  period: [string | null, string | null],
  todayMs: number,
): CrmBedrijfRow {
  return {
    crm_id: d.id,
    naam: random.chance(0.04) ? null : d.name,
    alias: random.chance(0.35) ? (d.name?.split(" ").slice(-1).join(" ") ?? null) : null,
    organisatie_type: random.chance(0.08) ? null : random.pick(ORGANISATION_TYPES),
    btw_nummer: random.chance(0.3) ? null : fields.vatNumber(random),
    straat: random.chance(0.02)
      ? null
      : `${d.faker.location.street()} ${d.faker.location.buildingNumber()}`,
    postcode: random.chance(0.04) ? null : d.postcode,
    gemeente: random.chance(0.03) ? d.city.toUpperCase() : d.city,
    provincie: d.provinceText,
    land: d.country,
    email: random.chance(0.12) ? null : d.email,
    telefoon: random.chance(0.08) ? null : d.phone,
    taal: fields.languageValue(random, d.rawLang, 0.07),
    periode_start: period[0],
    periode_stop: period[1],
    gewijzigd_op: fields.dateTimeBetween(
      random,
      todayMs - 2 * YEAR_MS,
      fields.latestStampMs(todayMs),
    ),
  };
}

function secondaryPeriod(random: Random, today: string): [string | null, string | null] {
  const start = addDays(today, -random.int(30, 5000));
  return random.weighted<[string | null, string | null]>([
    [70, [start, OPEN_ENDED]],
    [12, [start, addDays(today, -random.int(1, 1500))]],
    [6, [addDays(today, random.int(1, 120)), OPEN_ENDED]],
    [8, [start, addDays(today, random.int(1, 700))]],
    [2, [null, OPEN_ENDED]],
    [2, [start, null]],
  ]);
}

function primaryRow(random: Random, d: Draft, id: number, todayMs: number): PraktijkRow {
  const created = todayMs - random.next() * 12 * YEAR_MS - YEAR_MS;
  return {
    praktijk_id: id,
    crm_ref: d.id,
    naam: random.chance(0.1) ? `${d.name} (oud)` : d.name,
    actief: random.chance(0.88) ? 1 : 0,
    zichtbaar: random.chance(0.92) ? 1 : 0,
    taal: fields.languageValue(random, d.rawLang, 0.04),
    logo: random.weighted<string | null>([
      [55, `logos/praktijk-${id}.png`],
      [5, `https://cdn.example-praktijk.be/logo/${id}.svg`],
      [40, null],
    ]),
    regio_tekst: random.chance(0.5) ? fields.htmlRegionText(d.lang, d.city) : null,
    contact_tekst: random.chance(0.45) ? fields.htmlContactText(d.lang, d.phone, d.email) : null,
    coach_mdw_ref: random.chance(0.85) ? `MDW${String(random.int(1, 60)).padStart(4, "0")}` : null,
    aangemaakt_op: toBrusselsDateTime(Math.floor(created / 1000) * 1000),
    gewijzigd_op: fields.dateTimeBetween(random, created, fields.latestStampMs(todayMs)),
  };
}

function legacyId(random: Random, n: number): string {
  return random.weighted<string>([
    [5, `PR-${String(n).padStart(6, "0")}`],
    [4, `ACC/${random.int(1998, 2012)}/${n}`],
    [3, String(n).padStart(6, "0")],
    [2, `OUD ${n}`],
  ]);
}

class TableBuilder {
  readonly tables: BulkPractices = { crm: [], praktijk: [], tdm: [], directory: [] };
  private nextRowId = BULK_ID_START;
  private nextTdm = BULK_ID_START;

  addPrimary(random: Random, d: Draft, todayMs: number): void {
    const shape = random.weighted<"single" | "twoActive" | "activeAndOld">([
      [92, "single"],
      [3, "twoActive"],
      [5, "activeAndOld"],
    ]);
    const rows = [primaryRow(random, d, this.nextRowId++, todayMs)];
    if (shape !== "single") rows.push(primaryRow(random, d, this.nextRowId++, todayMs));
    if (shape === "twoActive")
      for (const row of rows) Object.assign(row, { actief: 1, zichtbaar: 1 });
    if (shape === "activeAndOld")
      Object.assign(rows[0] as PraktijkRow, { actief: 0, zichtbaar: 0 });
    for (const row of rows) {
      this.tables.praktijk.push(row);
      if (row.actief) this.addTdmLinks(random, row);
    }
  }

  private addTdmLinks(random: Random, row: PraktijkRow): void {
    const count = random.weighted<number>([
      [45, 0],
      [40, 1],
      [10, 2],
      [5, 3],
    ]);
    for (let i = 0; i < count; i++) {
      const id = this.nextTdm++;
      this.tables.tdm.push({
        tdm_koppeling_id: id,
        praktijk_id: row.praktijk_id,
        tdm_ref: `TDM${200_000 + id}`,
        aangemaakt_op: row.gewijzigd_op,
      });
    }
  }
}

export function bulkPractices(
  random: Random,
  counts: { primary: number; secondary: number },
  today: string,
): BulkPractices {
  const todayMs = brusselsNoonUtc(today);
  const builder = new TableBuilder();
  const { tables } = builder;
  for (let i = 0; i < counts.primary; i++) {
    const uuidShaped = random.chance(0.85);
    const d = draftPractice(
      random,
      uuidShaped ? random.uuid() : legacyId(random, BULK_ID_START + i),
      "primary",
    );
    builder.addPrimary(random, d, todayMs);
    if (uuidShaped && random.chance(0.9)) {
      const period: [string, string] = [
        addDays(today, -random.int(400, 6000)),
        random.chance(0.9) ? OPEN_ENDED : addDays(today, -random.int(1, 300)),
      ];
      tables.crm.push(crmRow(random, d, period, todayMs));
    }
    tables.directory.push(d);
  }
  for (let i = 0; i < counts.secondary; i++) {
    const d = draftPractice(random, random.uuid(), "secondary");
    tables.crm.push(crmRow(random, d, secondaryPeriod(random, today), todayMs));
    tables.directory.push(d);
  }
  return tables;
}
