import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection } from "mysql2/promise";
import { createTempMysqlDatabase, type TempDatabase } from "@svc/testing";
import { createLegacyDb, type LegacyDb } from "../src/index.ts";

let database: TempDatabase;
let db: LegacyDb;
beforeAll(async () => {
  database = await createTempMysqlDatabase("legacy_prep");
  // The legacy sessions are read-only: the table is made on a connection of the test's own.
  const admin = await createConnection(database.url);
  await admin.query(
    "CREATE TABLE item (id INT PRIMARY KEY, code VARCHAR(10) NOT NULL, price DECIMAL(6,2), seen DATETIME, day DATE)",
  );
  await admin.query(
    "INSERT INTO item VALUES (1, 'a', 1.50, '2026-03-29 02:30:00', '2026-03-29'), (2, 'b', NULL, '0000-00-00 00:00:00', NULL), (3, 'c', 20.00, '2026-10-25 02:30:00', '2026-10-25')",
  );
  await admin.end();
  // One connection, so that its session counters are the ones read back.
  db = createLegacyDb({ url: database.url, connectionLimit: 1 });
});
afterAll(async () => {
  await db.close();
  await database.drop();
});

/** The connection's own statement counters (SHOW is itself prepared and executed once). */
async function counters(): Promise<{ prepared: number; executed: number }> {
  const rows = await db.query<{ Variable_name: string; Value: string }>(
    "SHOW SESSION STATUS WHERE Variable_name IN ('Com_stmt_prepare', 'Com_stmt_execute')",
  );
  const value = (name: string) => Number(rows.find((r) => r.Variable_name === name)?.Value);
  return { prepared: value("Com_stmt_prepare"), executed: value("Com_stmt_execute") };
}

describe("legacy reads as prepared statements", () => {
  it("prepares a statement once per connection and executes it on every later call", async () => {
    const before = await counters();
    for (let i = 1; i <= 5; i++)
      expect(
        await db.query<{ code: string }>("SELECT code FROM item WHERE id = ?", [(i % 3) + 1]),
      ).toHaveLength(1);
    const after = await counters();
    // The SELECT once, and the second SHOW once (the first SHOW's text is now cached too).
    expect(after.prepared - before.prepared).toBe(1);
    expect(after.executed - before.executed).toBe(6);
  });

  it("returns the values the text protocol returned: numbers, decimals, and date-times as the wall-clock strings", async () => {
    const rows = await db.query<Record<string, unknown>>(
      "SELECT id, code, price, seen, day, COUNT(*) OVER () AS n, id = ? AS first FROM item ORDER BY id",
      [1],
    );
    expect(rows).toEqual([
      {
        id: 1,
        code: "a",
        price: 1.5,
        seen: "2026-03-29 02:30:00",
        day: "2026-03-29",
        n: 3,
        first: 1,
      },
      { id: 2, code: "b", price: null, seen: "0000-00-00 00:00:00", day: null, n: 3, first: 0 },
      {
        id: 3,
        code: "c",
        price: 20,
        seen: "2026-10-25 02:30:00",
        day: "2026-10-25",
        n: 3,
        first: 0,
      },
    ]);
  });

  it("expands a list parameter into a value list (IN (?)), as the text protocol does", async () => {
    const rows = await db.query<{ id: number }>(
      "SELECT id FROM item WHERE code IN (?) ORDER BY id",
      [["a", "c", "zz"]],
    );
    expect(rows.map((r) => r.id)).toEqual([1, 3]);
  });

  it("binds page bounds and string comparisons as the text protocol did", async () => {
    const rows = await db.query<{ id: number }>(
      "SELECT id FROM item WHERE code >= ? ORDER BY id LIMIT ? OFFSET ?",
      ["b", 1, 1],
    );
    expect(rows.map((r) => r.id)).toEqual([3]);
  });
});
