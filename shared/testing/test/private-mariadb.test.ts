import { createConnection, type RowDataPacket } from "mysql2/promise";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateMariaDb, type PrivateMariaDb } from "../src/private-mariadb.ts";

let server: PrivateMariaDb;
beforeAll(async () => void (server = await startPrivateMariaDb()), 60_000);
afterAll(async () => server?.cleanup());

async function query(sql: string, url = server.url): Promise<RowDataPacket[]> {
  const c = await createConnection({ uri: url, connectTimeout: 2_000 });
  try {
    return (await c.query<RowDataPacket[]>(sql))[0];
  } finally {
    await c.end();
  }
}

describe("a private MariaDB server", () => {
  it("runs on its own port, not the shared 3306, as root without a password, flushing every commit", async () => {
    expect(server.port).not.toBe(3306);
    expect(server.url).toBe(`mysql://root@127.0.0.1:${server.port}`);
    expect(
      await query("SELECT @@innodb_flush_log_at_trx_commit AS f, CURRENT_USER() AS u"),
    ).toEqual([{ f: 1, u: "root@127.0.0.1" }]);
  });

  it("keeps committed rows across a graceful stop and a SIGKILL, and refuses connections while down", async () => {
    await query("CREATE DATABASE kept_db");
    await query("CREATE TABLE kept_db.kept (n INT PRIMARY KEY) ENGINE=InnoDB");
    await query("INSERT INTO kept_db.kept VALUES (1)");

    await server.stop();
    expect(server.running()).toBe(false);
    await expect(query("SELECT 1")).rejects.toMatchObject({ code: "ECONNREFUSED" });
    await server.start();
    await query("INSERT INTO kept_db.kept VALUES (2)");

    const held = await createConnection({ uri: server.url });
    held.on("error", () => undefined);
    await server.kill();
    await expect(held.query("SELECT 1")).rejects.toThrow();
    await server.restart();
    expect(server.running()).toBe(true);
    expect(await query("SELECT n FROM kept ORDER BY n", server.urlFor("kept_db"))).toEqual([
      { n: 1 },
      { n: 2 },
    ]);
  });

  it("hangs while frozen (new and open connections alike) and answers again once thawed", async () => {
    const open = await createConnection({ uri: server.url });
    open.on("error", () => undefined);
    server.freeze();
    try {
      const started = Date.now();
      await expect(
        createConnection({ uri: server.url, connectTimeout: 500 }),
      ).rejects.toMatchObject({ code: "ETIMEDOUT" });
      expect(Date.now() - started).toBeGreaterThanOrEqual(450);
      await expect(open.query({ sql: "SELECT 1", timeout: 500 })).rejects.toMatchObject({
        code: "PROTOCOL_SEQUENCE_TIMEOUT",
      });
    } finally {
      server.thaw();
      open.destroy();
    }
    expect(await query("SELECT n FROM kept ORDER BY n", server.urlFor("kept_db"))).toEqual([
      { n: 1 },
      { n: 2 },
    ]);
  });

  it("removes its data directory on clean-up", async () => {
    const spare = await startPrivateMariaDb();
    expect(spare.port).not.toBe(server.port);
    await spare.cleanup();
    expect(existsSync(spare.dataDir)).toBe(false);
    expect(existsSync(server.dataDir)).toBe(true);
  });
});
