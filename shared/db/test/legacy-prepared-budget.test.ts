import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection, type Connection, type RowDataPacket } from "mysql2/promise";
import { startPrivateMariaDb, type PrivateMariaDb } from "@svc/testing";
import { createLegacyDb } from "../src/index.ts";

// max_prepared_stmt_count is one budget for every client of a MariaDB server (the legacy
// application's too): a read that finds it spent goes as text instead of failing. A private
// server, since the budget is global and the shared one serves the other tests meanwhile.
let server: PrivateMariaDb;
let admin: Connection;
beforeAll(async () => {
  server = await startPrivateMariaDb();
  admin = await createConnection(server.url);
  await admin.query("CREATE DATABASE budget");
  await admin.query("CREATE TABLE budget.item (id INT PRIMARY KEY, code VARCHAR(10) NOT NULL)");
  await admin.query("INSERT INTO budget.item VALUES (1, 'a'), (2, 'b')");
}, 60_000);
afterAll(async () => {
  await admin?.end();
  await server?.cleanup();
});

const prepared = async () =>
  Number(
    (
      (await admin.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Com_stmt_prepare'"))[0][0] as {
        Value: string;
      }
    ).Value,
  );

describe("legacy reads when the server's prepared-statement budget is spent", () => {
  it("answers every read as text, and prepares again once the budget allows", async () => {
    const legacy = createLegacyDb({ url: server.urlFor("budget"), connectionLimit: 2 });
    try {
      await admin.query("SET GLOBAL max_prepared_stmt_count = 0");
      const before = await prepared();
      for (const id of [1, 2, 1])
        expect(
          await legacy.query<{ code: string }>("SELECT code FROM item WHERE id = ?", [id]),
        ).toEqual([{ code: id === 1 ? "a" : "b" }]);
      // The server refused every PREPARE (a refusal is not counted): answered through the text
      // protocol.
      expect(await prepared()).toBe(before);
      await admin.query("SET GLOBAL max_prepared_stmt_count = DEFAULT");
      expect(
        await legacy.query<{ code: string }>("SELECT code FROM item WHERE id = ?", [2]),
      ).toEqual([{ code: "b" }]);
      expect(
        await legacy.query<{ code: string }>("SELECT code FROM item WHERE id = ?", [1]),
      ).toEqual([{ code: "a" }]);
      // Prepared once on the connection that first ran it after the reset (at most once per pooled
      // connection).
      expect(await prepared()).toBeGreaterThanOrEqual(before + 1);
      expect(await prepared()).toBeLessThanOrEqual(before + 2);
    } finally {
      await admin.query("SET GLOBAL max_prepared_stmt_count = DEFAULT");
      await legacy.close();
    }
  }, 30_000);
});
