import type { Connection, RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtures } from "../src/fixtures.ts";
import type { VacancyFixture } from "../src/fixtures.ts";
import { BULK_ID_START } from "../src/generator/bulk-practices.ts";
import { seedDatabase } from "../src/load/seed-database.ts";
import {
  count,
  dropDatabase,
  openConnection,
  TEST_TODAY,
  uniqueDatabaseName,
} from "./support/temp-database.ts";

let connection: Connection;
const database = uniqueDatabaseName();
const TODAY = `'${TEST_TODAY}'`;
const LIVE = "verwijderd = 0";
const EMPTY = (column: string): string => `(${column} IS NULL OR ${column} = '')`;
const FILLED = (column: string): string => `(${column} IS NOT NULL AND ${column} <> '')`;
const UNKNOWN_CODE = (column: string, list: string, key: string): string =>
  `${column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${list} r WHERE r.${key} = v.${column})`;
const INACTIVE_CODE = (column: string, list: string, key: string): string =>
  `EXISTS (SELECT 1 FROM ${list} r WHERE r.${key} = v.${column} AND r.actief = 0)`;

beforeAll(async () => {
  connection = await openConnection();
  await seedDatabase(connection, database, { seed: 42, scale: 1, today: TEST_TODAY }, "replace");
});

afterAll(async () => {
  await dropDatabase(connection, database);
  await connection.end();
});

/**
 * Each oddity as a WHERE condition on `tbl_vacature v`; each must hold for at least one fixture and
 * for some bulk rows.
 */
const ODDITIES: Array<[string, string]> = [
  ["title from the public heading", FILLED("kop_publiek")],
  ["title from the frontend name", `${EMPTY("kop_publiek")} AND ${FILLED("naam_frontend")}`],
  [
    "title from the internal name",
    `${EMPTY("kop_publiek")} AND ${EMPTY("naam_frontend")} AND ${FILLED("naam_intern")}`,
  ],
  [
    "no title at all",
    `${EMPTY("kop_publiek")} AND ${EMPTY("naam_frontend")} AND ${EMPTY("naam_intern")}`,
  ],
  ["unknown position code", UNKNOWN_CODE("functie_code", "tbl_functie", "functie_code")],
  ["inactive position code", INACTIVE_CODE("functie_code", "tbl_functie", "functie_code")],
  ["absent position", "functie_code IS NULL"],
  ["unknown province code", UNKNOWN_CODE("provincie_code", "tbl_provincie", "provincie_code")],
  ["inactive province code", INACTIVE_CODE("provincie_code", "tbl_provincie", "provincie_code")],
  ["absent province", "provincie_code IS NULL"],
  ["employment time Fulltime", "werktijd = 'Fulltime'"],
  ["employment time Parttime", "werktijd = 'Parttime'"],
  ["employment time ParttimeFulltime", "werktijd = 'ParttimeFulltime'"],
  ["unknown employment time", "werktijd NOT IN ('Fulltime', 'Parttime', 'ParttimeFulltime')"],
  ["contract Werknemer", "contract_type = 'Werknemer'"],
  ["contract Zelfstandig", "contract_type = 'Zelfstandig'"],
  ["contract Werknemer - zelfstandig", "contract_type = 'Werknemer - zelfstandig'"],
  [
    "unknown contract",
    "contract_type NOT IN ('Werknemer', 'Zelfstandig', 'Werknemer - zelfstandig')",
  ],
  ["status 1", "status = 1"],
  ["status 2", "status = 2"],
  ["status 3", "status = 3"],
  ["visible", "zichtbaar = 1"],
  ["invisible", "zichtbaar = 0"],
  ["display date absent", "publicatiedatum IS NULL"],
  [`display date past`, `publicatiedatum < ${TODAY}`],
  [`display date today`, `publicatiedatum = ${TODAY}`],
  [`display date future`, `publicatiedatum > ${TODAY}`],
  ["soft-deleted", "verwijderd = 1"],
  [
    "reference to a primary practice",
    "EXISTS (SELECT 1 FROM tbl_praktijk p WHERE p.crm_ref = v.praktijk_ref)",
  ],
  [
    "reference to a secondary practice",
    "praktijk_keuzelijst = 'crm' AND EXISTS (SELECT 1 FROM crm_bedrijf c WHERE c.crm_id = v.praktijk_ref) AND NOT EXISTS (SELECT 1 FROM tbl_praktijk p WHERE p.crm_ref = v.praktijk_ref)",
  ],
  ["no practice reference", "praktijk_ref IS NULL"],
  [
    "dangling practice reference",
    "praktijk_ref IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tbl_praktijk p WHERE p.crm_ref = v.praktijk_ref) AND NOT EXISTS (SELECT 1 FROM crm_bedrijf c WHERE c.crm_id = v.praktijk_ref)",
  ],
  ["pasted word-processor formatting", "inhoud_intro LIKE '%<p class=\"MsoNormal\"><span style=%'"],
  ["language outside nl/fr", "taal IS NULL OR BINARY taal NOT IN ('nl', 'fr')"],
  ["seeking-nurse code set", "zoekt_verpleegkundige IS NOT NULL AND zoekt_verpleegkundige <> ''"],
];

describe("vacancy oddities in the default data set", () => {
  it.each(ODDITIES)("contains vacancies with %s among fixtures and bulk", async (_label, where) => {
    const fixed = await count(
      connection,
      `SELECT COUNT(*) AS n FROM tbl_vacature v WHERE vacature_id < 10000 AND (${where})`,
    );
    const bulk = await count(
      connection,
      `SELECT COUNT(*) AS n FROM tbl_vacature v WHERE vacature_id > 10000 AND (${where})`,
    );
    expect(fixed).toBeGreaterThan(0);
    expect(bulk).toBeGreaterThan(0);
  });

  it("has a few thousand vacancies at the default scale", async () => {
    expect(
      await count(connection, "SELECT COUNT(*) AS n FROM tbl_vacature"),
    ).toBeGreaterThanOrEqual(2000);
  });

  it("stamps no generated vacancy or practice on or after the seed day, so none is in the future", async () => {
    for (const [table, key] of [
      ["tbl_vacature", "vacature_id"],
      ["tbl_praktijk", "praktijk_id"],
    ])
      expect(
        await count(
          connection,
          `SELECT COUNT(*) AS n FROM ${table} WHERE ${key} >= ${BULK_ID_START} AND gewijzigd_op >= ${TODAY}`,
        ),
        table,
      ).toBe(0);
  });

  // `taal` uses the case-insensitive table collation, so `taal = 'nl'` alone would also match the
  // odd value `NL`.
  it("stores slugs with the public site's language prefix", async () => {
    expect(
      await count(
        connection,
        `SELECT COUNT(*) AS n FROM tbl_vacature WHERE ${LIVE} AND taal = BINARY 'nl' AND slug NOT LIKE 'vacatures/%'`,
      ),
    ).toBe(0);
    expect(
      await count(
        connection,
        `SELECT COUNT(*) AS n FROM tbl_vacature WHERE ${LIVE} AND taal = BINARY 'fr' AND slug NOT LIKE 'postesvacants/%'`,
      ),
    ).toBe(0);
  });

  it("stores timestamps on both sides of both 2024 DST changes", async () => {
    const at = (from: string, to: string): Promise<number> =>
      count(
        connection,
        "SELECT COUNT(*) AS n FROM tbl_vacature WHERE (aangemaakt_op >= ? AND aangemaakt_op < ?) OR (gewijzigd_op >= ? AND gewijzigd_op < ?)",
        [from, to, from, to],
      );
    expect(await at("2024-03-31 00:00:00", "2024-03-31 02:00:00")).toBeGreaterThan(0);
    expect(await at("2024-03-31 03:00:00", "2024-03-31 06:00:00")).toBeGreaterThan(0);
    expect(await at("2024-10-27 00:00:00", "2024-10-27 02:00:00")).toBeGreaterThan(0);
    expect(await at("2024-10-27 03:00:00", "2024-10-27 06:00:00")).toBeGreaterThan(0);
  });

  it("never stores a wall-clock time skipped by the spring-forward change", async () => {
    const skipped = ["2021-03-28", "2022-03-27", "2023-03-26", "2024-03-31", "2025-03-30"]
      .map(
        (d) =>
          `(aangemaakt_op BETWEEN '${d} 02:00:00' AND '${d} 02:59:59' OR gewijzigd_op BETWEEN '${d} 02:00:00' AND '${d} 02:59:59')`,
      )
      .join(" OR ");
    expect(await count(connection, `SELECT COUNT(*) AS n FROM tbl_vacature WHERE ${skipped}`)).toBe(
      0,
    );
  });
});

/** What each catalogued vacancy must look like, as a condition on its row. */
const FIXTURE_MEANING: Partial<Record<VacancyFixture, string>> = {
  titleFromFrontendName: "kop_publiek = '' AND naam_frontend <> ''",
  titleFromInternalName: "kop_publiek IS NULL AND naam_frontend = '' AND naam_intern <> ''",
  displayDatePast: `publicatiedatum = DATE_SUB(${TODAY}, INTERVAL 1 DAY) AND zichtbaar = 1`,
  displayDateToday: `publicatiedatum = ${TODAY} AND zichtbaar = 1`,
  displayDateFuture: `publicatiedatum = DATE_ADD(${TODAY}, INTERVAL 1 DAY) AND zichtbaar = 1`,
  invisibleWithPastDisplayDate: `zichtbaar = 0 AND publicatiedatum < ${TODAY}`,
  softDeleted: "verwijderd = 1 AND zichtbaar = 1",
  provinceInactive: `provincie_code = '${fixtures.values.inactiveProvinceCode}'`,
  positionUnknown: `functie_code = '${fixtures.values.unknownPositionCode}'`,
  practiceNone: "praktijk_ref IS NULL AND praktijk_keuzelijst IS NULL",
  practiceTypeSnapshotStale: `praktijk_keuzelijst = 'crm' AND praktijk_ref = '${fixtures.practices.collisionPrimaryWins}'`,
  dstSpringForward:
    "aangemaakt_op = '2024-03-31 01:45:00' AND gewijzigd_op = '2024-03-31 03:15:00'",
  dstFallBackAmbiguous: "gewijzigd_op = '2024-10-27 02:30:00'",
  statusFilled: "status = 3",
};

describe("vacancy fixtures", () => {
  it("puts every catalogued vacancy in the data set once", async () => {
    const uuids = Object.values(fixtures.vacancies);
    expect(new Set(uuids).size).toBe(uuids.length);
    const [rows] = await connection.query<RowDataPacket[]>(
      "SELECT uuid FROM tbl_vacature WHERE uuid IN (?)",
      [uuids],
    );
    expect(rows).toHaveLength(uuids.length);
  });

  it.each(Object.entries(FIXTURE_MEANING))(
    "%s has the meaning its name promises",
    async (key, where) => {
      const uuid = fixtures.vacancies[key as VacancyFixture];
      expect(
        await count(
          connection,
          `SELECT COUNT(*) AS n FROM tbl_vacature WHERE uuid = ? AND ${where}`,
          [uuid],
        ),
      ).toBe(1);
    },
  );
});
