import type { Connection, RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATA_TABLES } from "@svc/legacy";
import { fixtures } from "../src/fixtures.ts";
import { COLUMNS } from "../src/generator/rows.ts";
import { seedDatabase } from "../src/load/seed-database.ts";
import {
  count,
  dropDatabase,
  openConnection,
  TEST_TODAY,
  uniqueDatabaseName,
} from "./support/temp-database.ts";

const P = fixtures.practices;
const UUID = "'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'";
/** Secondary-source practices: CRM rows without any primary row. */
const SECONDARY =
  "crm_bedrijf c WHERE NOT EXISTS (SELECT 1 FROM tbl_praktijk p WHERE p.crm_ref = c.crm_id)";
/** One row per primary practice (distinct CRM reference). */
const PRIMARY_IDS = "(SELECT DISTINCT crm_ref FROM tbl_praktijk) p";

let connection: Connection;
const database = uniqueDatabaseName();

beforeAll(async () => {
  connection = await openConnection();
  await seedDatabase(connection, database, { seed: 42, scale: 1, today: TEST_TODAY }, "replace");
});

afterAll(async () => {
  await dropDatabase(connection, database);
  await connection.end();
});

describe("legacy schema", () => {
  it("has exactly the columns the generator writes, in DDL order", async () => {
    for (const table of DATA_TABLES) {
      const [rows] = await connection.query<RowDataPacket[]>(
        "SELECT COLUMN_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
        [database, table],
      );
      expect(
        rows.map((r) => r.c),
        table,
      ).toEqual(COLUMNS[table]);
    }
  });

  it("indexes every practice filter and the change-detection columns", async () => {
    const [rows] = await connection.query<RowDataPacket[]>(
      "SELECT DISTINCT CONCAT(TABLE_NAME, '.', INDEX_NAME) AS i FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ?",
      [database],
    );
    const indexes = rows.map((r) => String(r.i));
    for (const name of [
      "tbl_praktijk.idx_praktijk_actief",
      "tbl_praktijk.idx_praktijk_zichtbaar",
      "tbl_praktijk.idx_praktijk_taal",
      "tbl_praktijk.idx_praktijk_naam",
      "tbl_praktijk.idx_praktijk_crm_ref",
      "tbl_praktijk.idx_praktijk_gewijzigd",
      "crm_bedrijf.PRIMARY",
      "crm_bedrijf.idx_crm_naam",
      "crm_bedrijf.idx_crm_provincie",
      "crm_bedrijf.idx_crm_taal",
      "crm_bedrijf.idx_crm_periode",
      "crm_bedrijf.idx_crm_gewijzigd",
      "tbl_praktijk_tdm.idx_tdm_praktijk",
    ])
      expect(indexes).toContain(name);
  });
});

describe("practice oddities in the default data set", () => {
  const present: Array<[string, string]> = [
    [
      "ids present in both sources",
      "SELECT COUNT(*) AS n FROM crm_bedrijf c WHERE EXISTS (SELECT 1 FROM tbl_praktijk p WHERE p.crm_ref = c.crm_id)",
    ],
    [
      "primary practices without CRM row",
      `SELECT COUNT(*) AS n FROM ${PRIMARY_IDS} WHERE NOT EXISTS (SELECT 1 FROM crm_bedrijf c WHERE c.crm_id = p.crm_ref)`,
    ],
    [
      "primary practices with more than one active row",
      "SELECT COUNT(*) AS n FROM (SELECT crm_ref FROM tbl_praktijk WHERE actief = 1 AND zichtbaar = 1 GROUP BY crm_ref HAVING COUNT(*) > 1) m",
    ],
    [
      "secondary practices open-ended (2999-12-31)",
      `SELECT COUNT(*) AS n FROM ${SECONDARY} AND c.periode_stop = '2999-12-31'`,
    ],
    [
      "secondary practices with a past stop date",
      `SELECT COUNT(*) AS n FROM ${SECONDARY} AND c.periode_stop < '${TEST_TODAY}'`,
    ],
    [
      "secondary practices with a future start date",
      `SELECT COUNT(*) AS n FROM ${SECONDARY} AND c.periode_start > '${TEST_TODAY}'`,
    ],
    [
      "36-character UUID-shaped ids",
      `SELECT COUNT(*) AS n FROM ${PRIMARY_IDS} WHERE crm_ref REGEXP ${UUID}`,
    ],
    [
      "older non-UUID ids",
      `SELECT COUNT(*) AS n FROM ${PRIMARY_IDS} WHERE crm_ref NOT REGEXP ${UUID}`,
    ],
    [
      "ids needing URL encoding (slash or space)",
      `SELECT COUNT(*) AS n FROM ${PRIMARY_IDS} WHERE crm_ref LIKE '%/%' OR crm_ref LIKE '% %'`,
    ],
    [
      "primary languages outside nl/fr",
      "SELECT COUNT(*) AS n FROM tbl_praktijk WHERE BINARY taal NOT IN ('nl', 'fr', '')",
    ],
    ["primary languages empty", "SELECT COUNT(*) AS n FROM tbl_praktijk WHERE taal = ''"],
    ["primary languages NULL", "SELECT COUNT(*) AS n FROM tbl_praktijk WHERE taal IS NULL"],
    [
      "CRM languages outside nl/fr",
      "SELECT COUNT(*) AS n FROM crm_bedrijf WHERE taal IS NULL OR BINARY taal NOT IN ('nl', 'fr')",
    ],
    ["missing postal codes", "SELECT COUNT(*) AS n FROM crm_bedrijf WHERE postcode IS NULL"],
    [
      "postal codes without an area (no coordinates)",
      "SELECT COUNT(*) AS n FROM crm_bedrijf c LEFT JOIN tbl_postcode a ON a.postcode = c.postcode WHERE c.postcode IS NOT NULL AND a.postcode IS NULL",
    ],
    [
      "postal codes with coordinates",
      "SELECT COUNT(*) AS n FROM crm_bedrijf c JOIN tbl_postcode a ON a.postcode = c.postcode",
    ],
    [
      "countries not in ISO form",
      "SELECT COUNT(*) AS n FROM crm_bedrijf WHERE land NOT REGEXP BINARY '^[A-Z]{2}$'",
    ],
    ["countries missing", "SELECT COUNT(*) AS n FROM crm_bedrijf WHERE land IS NULL"],
    ["missing VAT", "SELECT COUNT(*) AS n FROM crm_bedrijf WHERE btw_nummer IS NULL"],
    ["missing province text", "SELECT COUNT(*) AS n FROM crm_bedrijf WHERE provincie IS NULL"],
    [
      "CRM rows without name behind a primary practice",
      "SELECT COUNT(*) AS n FROM crm_bedrijf c JOIN tbl_praktijk p ON p.crm_ref = c.crm_id WHERE c.naam IS NULL",
    ],
    [
      "primary practices with no TDM link",
      `SELECT COUNT(*) AS n FROM ${PRIMARY_IDS} WHERE NOT EXISTS (SELECT 1 FROM tbl_praktijk r JOIN tbl_praktijk_tdm t ON t.praktijk_id = r.praktijk_id WHERE r.crm_ref = p.crm_ref)`,
    ],
    [
      "primary practices with exactly one TDM link",
      "SELECT COUNT(*) AS n FROM (SELECT r.crm_ref FROM tbl_praktijk r JOIN tbl_praktijk_tdm t ON t.praktijk_id = r.praktijk_id GROUP BY r.crm_ref HAVING COUNT(*) = 1) x",
    ],
    [
      "primary practices with several TDM links",
      "SELECT COUNT(*) AS n FROM (SELECT r.crm_ref FROM tbl_praktijk r JOIN tbl_praktijk_tdm t ON t.praktijk_id = r.praktijk_id GROUP BY r.crm_ref HAVING COUNT(*) > 1) x",
    ],
    [
      "inactive and invisible primary rows",
      "SELECT LEAST(SUM(actief = 0), SUM(zichtbaar = 0)) AS n FROM tbl_praktijk",
    ],
  ];

  it.each(present)("contains %s", async (_label, sql) => {
    expect(await count(connection, sql)).toBeGreaterThan(0);
  });

  it("has hundreds of practices at the default scale", async () => {
    expect(
      await count(connection, `SELECT COUNT(*) AS n FROM ${PRIMARY_IDS}`),
    ).toBeGreaterThanOrEqual(300);
    expect(
      await count(connection, `SELECT COUNT(*) AS n FROM ${SECONDARY}`),
    ).toBeGreaterThanOrEqual(120);
  });
});

describe("practice fixtures", () => {
  const primaryRows = (id: string): Promise<RowDataPacket[]> =>
    connection
      .query<RowDataPacket[]>("SELECT * FROM tbl_praktijk WHERE crm_ref = ? ORDER BY praktijk_id", [
        id,
      ])
      .then(([rows]) => rows);
  const crmRow = (id: string): Promise<RowDataPacket | undefined> =>
    connection
      .query<RowDataPacket[]>("SELECT * FROM crm_bedrijf WHERE crm_id = ?", [id])
      .then(([rows]) => rows[0]);

  it("puts every catalogued practice in the data set, secondary ones without primary row", async () => {
    for (const [key, id] of Object.entries(P)) {
      const rows = await primaryRows(id);
      const crm = await crmRow(id);
      expect(rows.length > 0 || crm !== undefined, key).toBe(true);
      expect(rows.length === 0, key).toBe(key.startsWith("secondary"));
    }
  });

  it("places the collision in both sources with contradicting CRM data", async () => {
    const [row] = await primaryRows(P.collisionPrimaryWins);
    const crm = await crmRow(P.collisionPrimaryWins);
    expect(row).toMatchObject({ actief: 1, zichtbaar: 1, taal: "nl" });
    expect(crm).toMatchObject({
      taal: "fr",
      periode_stop: "2025-06-14",
      naam: "Tandartsencentrum Zuid",
    });
  });

  it("gives each rule its record", async () => {
    expect(await crmRow(P.primaryWithoutCrmRow)).toBeUndefined();
    expect(
      (await primaryRows(P.multipleActiveRows)).filter((r) => r.actief && r.zichtbaar),
    ).toHaveLength(2);
    expect((await primaryRows(P.oneActiveOneInactiveRow)).map((r) => r.actief)).toEqual([0, 1]);
    expect((await crmRow(P.nameFromPrimaryCopy))?.naam).toBeNull();
    expect((await primaryRows(P.languageOther))[0]?.taal).toBe("de");
    expect((await crmRow(P.postalCodeNotInAreaTable))?.postcode).toBe("4811 AB");
    expect((await crmRow(P.countryNotIso))?.land).toBe("België");
    expect(await crmRow(P.secondaryOpenEnded)).toMatchObject({ periode_stop: "2999-12-31" });
    expect(await crmRow(P.secondaryStopped)).toMatchObject({ periode_stop: "2025-06-14" });
    expect(await crmRow(P.secondaryFutureStart)).toMatchObject({ periode_start: "2025-06-16" });
    expect(await crmRow(P.secondaryStartsToday)).toMatchObject({ periode_start: TEST_TODAY });
    expect(await crmRow(P.secondaryStopsToday)).toMatchObject({ periode_stop: TEST_TODAY });
    const tdm = await count(
      connection,
      "SELECT COUNT(*) AS n FROM tbl_praktijk_tdm t JOIN tbl_praktijk p USING (praktijk_id) WHERE p.crm_ref = ?",
      [P.tdmLinksMany],
    );
    expect(tdm).toBe(3);
  });

  it("finds both practices sharing a name with an exact match", async () => {
    const n = await count(connection, "SELECT COUNT(*) AS n FROM crm_bedrijf WHERE naam = ?", [
      fixtures.values.sharedPracticeName,
    ]);
    expect(n).toBeGreaterThanOrEqual(2);
  });

  it("resolves coordinates through the postal-code area", async () => {
    const [rows] = await connection.query<RowDataPacket[]>(
      "SELECT a.breedtegraad, a.lengtegraad FROM crm_bedrijf c JOIN tbl_postcode a ON a.postcode = c.postcode WHERE c.crm_id = ?",
      [P.primaryComplete],
    );
    expect(rows[0]).toEqual({ breedtegraad: "51.054300", lengtegraad: "3.717400" });
  });
});
