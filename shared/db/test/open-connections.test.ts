import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createConnection, type Connection, type RowDataPacket } from "mysql2/promise";
import {
  createTempMysqlDatabase,
  createTempPgDatabase,
  testEnv,
  type TempDatabase,
} from "@svc/testing";
import { createLegacyDb, createPgPool, openPgConnections } from "../src/index.ts";

// The start-up warm-up opens every pool connection up front (docs/decisions/cold-start-warm-up.md):
// counted by the servers themselves.
let pgDb: TempDatabase;
let myDb: TempDatabase;
let admin: Connection;
beforeAll(async () => {
  [pgDb, myDb] = await Promise.all([createTempPgDatabase(), createTempMysqlDatabase("open_c")]);
  admin = await createConnection({ uri: testEnv.TEST_MYSQL_URL });
});
afterAll(async () => {
  await admin.end();
  await Promise.all([pgDb.drop(), myDb.drop()]);
});

describe("opening a pool's connections up front", () => {
  it("PostgreSQL: openPgConnections leaves the pool's connections open on the server", async () => {
    const name = `open-${randomBytes(4).toString("hex")}`;
    const pool = createPgPool({ url: pgDb.url, schema: "public", applicationName: name, max: 5 });
    const server = new pg.Client({ connectionString: pgDb.url });
    await server.connect();
    try {
      expect(await openPgConnections(pool, 5)).toBe(5);
      const { rows } = await server.query<{ n: string }>(
        "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE application_name = $1",
        [name],
      );
      expect(Number(rows[0]?.n)).toBe(5);
      expect(pool.idleCount).toBe(5);
    } finally {
      await server.end();
      await pool.end();
    }
  });

  it("legacy MySQL: openConnections opens connectionLimit read-only sessions", async () => {
    const legacy = createLegacyDb({ url: myDb.url, connectionLimit: 4 });
    try {
      expect(await legacy.openConnections()).toBe(4);
      const [rows] = await admin.query<RowDataPacket[]>(
        "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ?",
        [myDb.name],
      );
      expect(Number(rows[0]?.n)).toBe(4);
    } finally {
      await legacy.close();
    }
  });

  it("legacy MySQL: an unreachable server fails it as LEGACY_SOURCE_UNAVAILABLE, within the connect bound", async () => {
    const legacy = createLegacyDb({
      url: "mysql://root@127.0.0.1:1/none",
      connectTimeoutMs: 300,
      connectionLimit: 2,
    });
    try {
      await expect(legacy.openConnections()).rejects.toMatchObject({
        code: "LEGACY_SOURCE_UNAVAILABLE",
      });
    } finally {
      await legacy.close();
    }
  });
});
