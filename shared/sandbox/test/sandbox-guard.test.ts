import type { Connection, RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyLegacySchema } from "@svc/legacy";
import { fixtures } from "../src/fixtures.ts";
import { ensureSandbox } from "../src/load/ensure-sandbox.ts";
import { MARKER_TABLE, SandboxRefusedError } from "../src/load/sandbox-guard.ts";
import { seedDatabase } from "../src/load/seed-database.ts";
import {
  count,
  dropDatabase,
  mysqlUrl,
  openConnection,
  TEST_TODAY,
  uniqueDatabaseName,
} from "./support/temp-database.ts";

let connection: Connection;
const created: string[] = [];
const options = { seed: 7, scale: 0, today: TEST_TODAY };

async function freshDatabase(): Promise<string> {
  const database = uniqueDatabaseName();
  created.push(database);
  await connection.query(`CREATE DATABASE ${database}`);
  return database;
}

async function tables(database: string): Promise<string[]> {
  const [rows] = await connection.query<RowDataPacket[]>(
    "SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY 1",
    [database],
  );
  return rows.map((r) => String(r.t));
}

beforeAll(async () => {
  connection = await openConnection();
});

afterAll(async () => {
  for (const database of created) await dropDatabase(connection, database);
  await connection.end();
});

describe("the generator refuses databases it did not create", () => {
  it("refuses a database holding someone else's table, and writes nothing", async () => {
    const database = await freshDatabase();
    await connection.query(`CREATE TABLE ${database}.kandidaat (id INT PRIMARY KEY)`);
    const attempt = seedDatabase(connection, database, options, "replace");
    await expect(attempt).rejects.toBeInstanceOf(SandboxRefusedError);
    await expect(seedDatabase(connection, database, options, "replace")).rejects.toThrow(
      /refusing to write sandbox data into database .*kandidaat/s,
    );
    expect(await tables(database)).toEqual(["kandidaat"]);
  });

  it("refuses a real legacy database: same table names, no marker", async () => {
    const database = await freshDatabase();
    await connection.query(`USE ${database}`);
    await applyLegacySchema(connection);
    await connection.query("INSERT INTO tbl_provincie VALUES ('XX', 'Echte data', 1, 1)");
    await expect(ensureSandbox({ url: mysqlUrl(), database, ...options })).rejects.toThrow(
      /no zz_sandbox_marker marker/,
    );
    expect(await count(connection, `SELECT COUNT(*) AS n FROM ${database}.tbl_provincie`)).toBe(1);
    expect(await tables(database)).not.toContain(MARKER_TABLE);
  });

  it("refuses its own sandbox once someone added a table to it", async () => {
    const database = await freshDatabase();
    await seedDatabase(connection, database, options, "replace");
    await connection.query(`CREATE TABLE ${database}.eigen_notities (id INT PRIMARY KEY)`);
    await expect(seedDatabase(connection, database, options, "replace")).rejects.toThrow(
      /eigen_notities/,
    );
  });

  it("rejects database names that are not plain identifiers", async () => {
    await expect(
      seedDatabase(connection, "legacy`; DROP DATABASE mysql; --", options, "replace"),
    ).rejects.toThrow(RangeError);
  });
});

describe("ensureSandbox", () => {
  it("creates and loads the sandbox on first start, then keeps it as is", async () => {
    const database = uniqueDatabaseName();
    created.push(database);
    const messages: string[] = [];
    const first = await ensureSandbox({
      url: mysqlUrl(),
      database,
      ...options,
      log: (m) => messages.push(m),
    });
    expect(first.action).toBe("created");
    expect(first.counts?.tbl_vacature).toBe(Object.keys(fixtures.vacancies).length);
    await connection.query(
      `UPDATE ${database}.tbl_vacature SET kop_publiek = 'lokaal gewijzigd' WHERE uuid = ?`,
      [fixtures.vacancies.ordinary],
    );
    const second = await ensureSandbox({
      url: mysqlUrl(),
      database,
      seed: 8,
      scale: 0,
      today: TEST_TODAY,
      log: (m) => messages.push(m),
    });
    expect(second).toMatchObject({ action: "kept", options });
    expect(
      await count(
        connection,
        `SELECT COUNT(*) AS n FROM ${database}.tbl_vacature WHERE kop_publiek = 'lokaal gewijzigd'`,
      ),
    ).toBe(1);
    expect(messages.some((m) => m.includes("keeping it"))).toBe(true);
  });

  it("reloads a sandbox whose previous load was interrupted", async () => {
    const database = await freshDatabase();
    await seedDatabase(connection, database, options, "replace");
    await connection.query(`UPDATE ${database}.${MARKER_TABLE} SET status = 'loading'`);
    await connection.query(`DELETE FROM ${database}.tbl_vacature`);
    const result = await ensureSandbox({ url: mysqlUrl(), database, ...options });
    expect(result.action).toBe("replaced");
    expect(await count(connection, `SELECT COUNT(*) AS n FROM ${database}.tbl_vacature`)).toBe(
      Object.keys(fixtures.vacancies).length,
    );
  });
});
