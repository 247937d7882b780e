import pg from "pg";
import { createConnection } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTempMysqlDatabase,
  createTempPgDatabase,
  testEnv,
  type TempDatabase,
} from "@svc/testing";
import { snapshotDifferences, snapshotMysql, snapshotPg } from "./store-snapshot.ts";

/** The hostile suite's "no stored data changed" rests on these snapshots noticing every change. */
let pgDb: TempDatabase;
let mysqlDb: TempDatabase;
let client: pg.Client;

beforeAll(async () => {
  pgDb = await createTempPgDatabase("snap");
  mysqlDb = await createTempMysqlDatabase("snap");
  client = new pg.Client({ connectionString: pgDb.url });
  await client.connect();
  await client.query(
    "CREATE SCHEMA svc; CREATE TABLE svc.items (id int PRIMARY KEY, name text, seen_at timestamptz); INSERT INTO svc.items VALUES (1, 'a', now()), (2, 'b', now())",
  );
  const c = await createConnection({ uri: testEnv.TEST_MYSQL_URL });
  await c.query(
    `CREATE TABLE \`${mysqlDb.name}\`.legacy (id int PRIMARY KEY, name varchar(20)) ENGINE=InnoDB`,
  );
  await c.query(`INSERT INTO \`${mysqlDb.name}\`.legacy VALUES (1, 'x'), (2, 'y')`);
  await c.end();
});
afterAll(async () => {
  await client?.end();
  await pgDb?.drop();
  await mysqlDb?.drop();
});

describe("store snapshots", () => {
  it("see an updated value, an inserted row and a deleted row in PostgreSQL", async () => {
    const before = await snapshotPg(pgDb.url);
    expect(snapshotDifferences(before, await snapshotPg(pgDb.url))).toEqual([]);
    await client.query("UPDATE svc.items SET name = 'changed' WHERE id = 1");
    expect(snapshotDifferences(before, await snapshotPg(pgDb.url))).toEqual([
      "pg:svc.items: rows 2 → 2, content changed",
    ]);
    await client.query("INSERT INTO svc.items VALUES (3, 'c', now())");
    await client.query("DELETE FROM svc.items WHERE id = 2");
    expect(snapshotDifferences(before, await snapshotPg(pgDb.url))).toEqual([
      "pg:svc.items: rows 2 → 2, content changed",
    ]);
    await client.query("DELETE FROM svc.items WHERE id = 3");
    expect(snapshotDifferences(before, await snapshotPg(pgDb.url))).toEqual([
      "pg:svc.items: rows 2 → 1, content changed",
    ]);
  });

  it("leave out only the columns named as background clocks", async () => {
    const before = await snapshotPg(pgDb.url, { ignoreColumns: { items: ["seen_at"] } });
    await client.query("UPDATE svc.items SET seen_at = now() + interval '1 hour'");
    expect(
      snapshotDifferences(
        before,
        await snapshotPg(pgDb.url, { ignoreColumns: { items: ["seen_at"] } }),
      ),
    ).toEqual([]);
    await client.query("UPDATE svc.items SET name = name || '!'");
    expect(
      snapshotDifferences(
        before,
        await snapshotPg(pgDb.url, { ignoreColumns: { items: ["seen_at"] } }),
      ),
    ).toHaveLength(1);
  });

  it("see a changed row in MySQL", async () => {
    const before = await snapshotMysql(testEnv.TEST_MYSQL_URL, mysqlDb.name);
    expect(Object.keys(before)).toEqual([`mysql:${mysqlDb.name}.legacy`]);
    const c = await createConnection({ uri: testEnv.TEST_MYSQL_URL });
    await c.query(`UPDATE \`${mysqlDb.name}\`.legacy SET name = 'z' WHERE id = 2`);
    await c.end();
    expect(
      snapshotDifferences(before, await snapshotMysql(testEnv.TEST_MYSQL_URL, mysqlDb.name)),
    ).toEqual([`mysql:${mysqlDb.name}.legacy: rows 2 → 2, content changed`]);
  });
});
