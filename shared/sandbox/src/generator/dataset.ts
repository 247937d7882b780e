/**
 * The whole synthetic data set for one (seed, scale, today): fixture records first, bulk records
 * after. Pure: no clock, no I/O, so equal options give byte-identical rows.
 */
import type { LegacyTable } from "@svc/legacy";
import { parseIsoDate } from "../brussels-time.ts";
import { bulkPractices } from "./bulk-practices.ts";
import type { BulkPractices } from "./bulk-practices.ts";
import { bulkVacancies } from "./bulk-vacancies.ts";
import { fixturePractices } from "./fixture-practices.ts";
import { fixtureVacancies } from "./fixture-vacancies.ts";
import { createRandom } from "./random.ts";
import { POSITIONS, PROVINCES, postcodeRows } from "./reference-data.ts";
import type { RowOf } from "./rows.ts";

export type DatasetOptions = {
  /** Any non-negative safe integer. */
  seed: number;
  /** Multiplier of the bulk volume; 0 gives the fixtures alone. See PER_SCALE. */
  scale: number;
  /**
   * The reference date `YYYY-MM-DD` (Europe/Brussels calendar) that "today"-relative records are
   * placed around.
   */
  today: string;
};

/**
 * Bulk volume per unit of scale: scale 1 seeds in about a second, scale 50 gives 100,000 bulk
 * vacancies.
 */
export const PER_SCALE = {
  primaryPractices: 300,
  secondaryPractices: 120,
  vacancies: 2000,
} as const;

export type Dataset = {
  readonly options: DatasetOptions;
  /** Row count per table, known before any row is generated. */
  readonly counts: Readonly<Record<LegacyTable, number>>;
  /** A fresh iterable over the table's rows; iterating twice yields the same rows. */
  rows<T extends LegacyTable>(table: T): Iterable<RowOf[T]>;
};

export function validateDatasetOptions(options: DatasetOptions): void {
  if (!Number.isSafeInteger(options.seed) || options.seed < 0)
    throw new RangeError(`seed must be a non-negative integer, got ${options.seed}`);
  if (!Number.isFinite(options.scale) || options.scale < 0 || options.scale > 1000) {
    throw new RangeError(`scale must be a number from 0 to 1000, got ${options.scale}`);
  }
  parseIsoDate(options.today);
}

function volume(scale: number): { primary: number; secondary: number; vacancies: number } {
  return {
    primary: Math.round(PER_SCALE.primaryPractices * scale),
    secondary: Math.round(PER_SCALE.secondaryPractices * scale),
    vacancies: Math.round(PER_SCALE.vacancies * scale),
  };
}

export function generateDataset(options: DatasetOptions): Dataset {
  validateDatasetOptions(options);
  const { seed, today } = options;
  const size = volume(options.scale);
  const fixed = fixturePractices(today);
  const bulk: BulkPractices = bulkPractices(createRandom(seed, "practices"), size, today);
  const fixedVacancies = fixtureVacancies(today);
  const practiceTables = {
    crm_bedrijf: [...fixed.crm, ...bulk.crm],
    tbl_praktijk: [...fixed.praktijk, ...bulk.praktijk],
    tbl_praktijk_tdm: [...fixed.tdm, ...bulk.tdm],
  };
  const eager: { [T in Exclude<LegacyTable, "tbl_vacature">]: ReadonlyArray<RowOf[T]> } = {
    tbl_provincie: PROVINCES,
    tbl_functie: POSITIONS,
    tbl_postcode: postcodeRows(),
    ...practiceTables,
  };
  function* vacancies(): Generator<RowOf["tbl_vacature"]> {
    yield* fixedVacancies;
    yield* bulkVacancies(createRandom(seed, "vacancies"), size.vacancies, bulk.directory, today);
  }
  const counts = Object.fromEntries(
    Object.entries(eager).map(([table, rows]) => [table, rows.length]),
  ) as Record<LegacyTable, number>;
  counts.tbl_vacature = fixedVacancies.length + size.vacancies;
  return {
    options: { ...options },
    counts,
    rows: <T extends LegacyTable>(table: T) =>
      (table === "tbl_vacature"
        ? { [Symbol.iterator]: vacancies }
        : eager[table as Exclude<LegacyTable, "tbl_vacature">]) as Iterable<RowOf[T]>,
  };
}
