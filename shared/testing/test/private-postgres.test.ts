import pg from "pg";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivatePostgres, type PrivatePostgres } from "../src/private-postgres.ts";

let server: PrivatePostgres;
beforeAll(async () => void (server = await startPrivatePostgres()), 60_000);
afterAll(async () => server?.cleanup());

async function query<T extends pg.QueryResultRow>(
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

describe("a private PostgreSQL server", () => {
  it("runs on its own port, not the shared 5432, with fsync on", async () => {
    expect(server.port).not.toBe(5432);
    expect(server.url).toBe(`postgres://postgres@127.0.0.1:${server.port}/postgres`);
    expect(await query("SHOW fsync")).toEqual([{ fsync: "on" }]);
  });

  it("keeps committed rows across a graceful stop and a SIGKILL, and refuses connections while down", async () => {
    await query("CREATE TABLE kept (n int PRIMARY KEY)");
    await query("INSERT INTO kept VALUES (1)");

    await server.stop();
    expect(server.running()).toBe(false);
    await expect(query("SELECT 1")).rejects.toMatchObject({ code: "ECONNREFUSED" });
    await server.start();
    await query("INSERT INTO kept VALUES (2)");

    // A client holding a connection sees it cut by the kill, and its backend process is gone too.
    const held = new pg.Client({ connectionString: server.url });
    await held.connect();
    held.on("error", () => undefined);
    const backend = (await held.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!
      .pid;
    await server.kill();
    await expect(held.query("SELECT 1")).rejects.toThrow();
    expect(() => process.kill(backend, 0)).toThrow();
    await server.restart();
    expect(server.running()).toBe(true);
    expect(await query("SELECT n FROM kept ORDER BY n")).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it("hangs while frozen (new and open connections alike) and answers again once thawed", async () => {
    const open = new pg.Client({ connectionString: server.url, query_timeout: 500 });
    await open.connect();
    open.on("error", () => undefined);
    server.freeze();
    try {
      const started = Date.now();
      const client = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: 500 });
      await expect(client.connect()).rejects.toThrow(/timeout/i);
      expect(Date.now() - started).toBeGreaterThanOrEqual(450);
      await expect(open.query("SELECT 1")).rejects.toThrow(/timeout/i);
    } finally {
      server.thaw();
      await open.end().catch(() => undefined);
    }
    expect(await query("SELECT n FROM kept ORDER BY n")).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it("serves other databases by name and removes its data directory on clean-up", async () => {
    await query("CREATE DATABASE other");
    const client = new pg.Client({ connectionString: server.urlFor("other") });
    await client.connect();
    expect((await client.query("SELECT current_database() AS db")).rows).toEqual([{ db: "other" }]);
    await client.end();
    const spare = await startPrivatePostgres();
    expect(spare.port).not.toBe(server.port);
    await spare.cleanup();
    expect(existsSync(spare.dataDir)).toBe(false);
    expect(existsSync(server.dataDir)).toBe(true);
  });
});
