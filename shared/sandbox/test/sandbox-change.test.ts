import type { Connection, RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSandboxChange } from "../src/load/sandbox-change.ts";
import { SandboxRefusedError } from "../src/load/sandbox-guard.ts";
import { seedDatabase } from "../src/load/seed-database.ts";
import {
  dropDatabase,
  openConnection,
  TEST_TODAY,
  uniqueDatabaseName,
} from "./support/temp-database.ts";

let connection: Connection;
const sandbox = uniqueDatabaseName();
const foreign = uniqueDatabaseName();
// 2026-07-01 10:00:00 UTC: 12:00 in Brussels (summer time), 06:00 in New York.
const NOW = Date.UTC(2026, 6, 1, 10, 0, 0);
const BRUSSELS = { timeZone: "Europe/Brussels", now: NOW };

async function row(sql: string, params: unknown[]): Promise<RowDataPacket> {
  const [rows] = await connection.query<RowDataPacket[]>(sql, params);
  expect(rows, sql).toHaveLength(1);
  return rows[0]!;
}

beforeAll(async () => {
  connection = await openConnection();
  await connection.query(`CREATE DATABASE ${sandbox}`);
  await seedDatabase(connection, sandbox, { seed: 7, scale: 0, today: TEST_TODAY }, "replace");
  await connection.query(`CREATE DATABASE ${foreign}`);
  await connection.query(`CREATE TABLE ${foreign}.tbl_vacature (vacature_id INT PRIMARY KEY)`);
});

afterAll(async () => {
  await dropDatabase(connection, sandbox);
  await dropDatabase(connection, foreign);
  await connection.end();
});

describe("makeSandboxChange", () => {
  it("stamps vacancy.updated with the primary system's wall clock in its zone, not the server's UTC", async () => {
    const done = await makeSandboxChange(connection, sandbox, "vacancy.updated", BRUSSELS);
    const stored = await row(
      `SELECT CAST(gewijzigd_op AS CHAR) AS t FROM ${sandbox}.tbl_vacature WHERE uuid = ?`,
      [done.entityId],
    );
    expect(done.entityType).toBe("vacancy");
    expect(stored.t).toBe("2026-07-01 12:00:00");
    expect(done.modifiedLocal).toBe(stored.t);
    const again = await makeSandboxChange(connection, sandbox, "vacancy.updated", {
      timeZone: "America/New_York",
      now: Date.UTC(2030, 0, 1, 12, 0, 0),
    });
    expect(again.modifiedLocal).toBe("2030-01-01 07:00:00");
  });

  it("creates a vacancy under a new uuid, then deletes that one softly, both stamped", async () => {
    const created = await makeSandboxChange(connection, sandbox, "vacancy.created", BRUSSELS);
    const inserted = await row(
      `SELECT verwijderd, CAST(gewijzigd_op AS CHAR) AS t, CAST(aangemaakt_op AS CHAR) AS c FROM ${sandbox}.tbl_vacature WHERE uuid = ?`,
      [created.entityId],
    );
    expect(inserted).toMatchObject({
      verwijderd: 0,
      t: "2026-07-01 12:00:00",
      c: "2026-07-01 12:00:00",
    });
    const deleted = await makeSandboxChange(connection, sandbox, "vacancy.deleted", BRUSSELS);
    expect(deleted.entityId).toBe(created.entityId);
    expect(
      await row(`SELECT verwijderd FROM ${sandbox}.tbl_vacature WHERE uuid = ?`, [
        created.entityId,
      ]),
    ).toMatchObject({ verwijderd: 1 });
  });

  it("creates a CRM-only practice and changes a practice's CRM alias, both stamped", async () => {
    const created = await makeSandboxChange(connection, sandbox, "practice.created", BRUSSELS);
    expect(
      await row(
        `SELECT CAST(gewijzigd_op AS CHAR) AS t, (SELECT COUNT(*) FROM ${sandbox}.tbl_praktijk WHERE crm_ref = ?) AS primary_rows FROM ${sandbox}.crm_bedrijf WHERE crm_id = ?`,
        [created.entityId, created.entityId],
      ),
    ).toMatchObject({ t: "2026-07-01 12:00:00", primary_rows: 0 });
    const first = await makeSandboxChange(connection, sandbox, "practice.updated", BRUSSELS);
    const alias = async () =>
      (
        await row(
          `SELECT alias, CAST(gewijzigd_op AS CHAR) AS t FROM ${sandbox}.crm_bedrijf WHERE crm_id = ?`,
          [first.entityId],
        )
      ).alias as string;
    const before = await alias();
    await makeSandboxChange(connection, sandbox, "practice.updated", BRUSSELS);
    expect(await alias(), "a new alias each time").not.toBe(before);
  });

  it("refuses a database that is not a seeded sandbox and changes nothing", async () => {
    for (const database of [foreign, "no_such_database_here"])
      await expect(
        makeSandboxChange(connection, database, "vacancy.updated", BRUSSELS),
      ).rejects.toBeInstanceOf(SandboxRefusedError);
  });
});
