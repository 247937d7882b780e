import { createHash } from "node:crypto";
import type { Connection } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATA_TABLES } from "@svc/legacy";
import { generateDataset } from "../src/generator/dataset.ts";
import type { DatasetOptions } from "../src/generator/dataset.ts";
import { seedDatabase } from "../src/load/seed-database.ts";
import {
  databaseHashes,
  dropDatabase,
  openConnection,
  TEST_TODAY,
  uniqueDatabaseName,
} from "./support/temp-database.ts";

let connection: Connection;
const databases = {
  first: uniqueDatabaseName(),
  second: uniqueDatabaseName(),
  otherSeed: uniqueDatabaseName(),
};
const options: DatasetOptions = { seed: 42, scale: 1, today: TEST_TODAY };

function memoryHash(o: DatasetOptions, table: (typeof DATA_TABLES)[number]): string {
  return createHash("sha256")
    .update(JSON.stringify([...generateDataset(o).rows(table)]))
    .digest("hex");
}

beforeAll(async () => {
  connection = await openConnection();
  await seedDatabase(connection, databases.first, options, "replace");
  await seedDatabase(connection, databases.second, options, "replace");
  await seedDatabase(connection, databases.otherSeed, { ...options, seed: 43 }, "replace");
});

afterAll(async () => {
  for (const database of Object.values(databases)) await dropDatabase(connection, database);
  await connection.end();
});

describe("determinism", () => {
  it("gives byte-identical tables for two loads with the same seed", async () => {
    const first = await databaseHashes(connection, databases.first);
    const second = await databaseHashes(connection, databases.second);
    expect(second).toEqual(first);
  });

  it("gives different bulk data for another seed, but the same reference lists", async () => {
    const first = await databaseHashes(connection, databases.first);
    const other = await databaseHashes(connection, databases.otherSeed);
    expect(other.tbl_vacature).not.toBe(first.tbl_vacature);
    expect(other.crm_bedrijf).not.toBe(first.crm_bedrijf);
    expect(other.tbl_functie).toBe(first.tbl_functie);
    expect(other.tbl_provincie).toBe(first.tbl_provincie);
  });

  it("keeps fixture rows identical whatever the seed", () => {
    const fixtureRows = (seed: number): string =>
      JSON.stringify(
        [...generateDataset({ ...options, seed }).rows("tbl_vacature")].filter(
          (r) => r.vacature_id < 10_000,
        ),
      );
    expect(fixtureRows(1)).toBe(fixtureRows(99));
  });

  it("yields the same rows when a table is iterated twice", () => {
    const dataset = generateDataset({ ...options, scale: 0.2 });
    expect(JSON.stringify([...dataset.rows("tbl_vacature")])).toBe(
      JSON.stringify([...dataset.rows("tbl_vacature")]),
    );
    expect(memoryHash({ ...options, scale: 0.2 }, "crm_bedrijf")).toBe(
      memoryHash({ ...options, scale: 0.2 }, "crm_bedrijf"),
    );
  });

  it("reports row counts that match the rows", () => {
    const dataset = generateDataset({ ...options, scale: 0.3 });
    for (const table of DATA_TABLES)
      expect([...dataset.rows(table)].length, table).toBe(dataset.counts[table]);
  });
});
