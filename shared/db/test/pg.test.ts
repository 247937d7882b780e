import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTempPgDatabase, TcpProxy, unusedPort, type TempDatabase } from "@svc/testing";
import { DependencyUnavailableError } from "@svc/errors";
import { createPgPool, guardPg, runMigrations } from "../src/index.ts";

let database: TempDatabase;
beforeAll(async () => {
  database = await createTempPgDatabase();
});
afterAll(() => database.drop());

function migrationsFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "mig-"));
  mkdirSync(join(dir, "meta"));
  writeFileSync(
    join(dir, "0000_init.sql"),
    'CREATE TABLE "demo"."things" ("id" serial PRIMARY KEY, "name" text NOT NULL);',
  );
  writeFileSync(
    join(dir, "meta", "_journal.json"),
    JSON.stringify({
      version: "7",
      dialect: "postgresql",
      entries: [
        { idx: 0, version: "7", when: 1_700_000_000_000, tag: "0000_init", breakpoints: true },
      ],
    }),
  );
  return dir;
}

describe("PostgreSQL own store", () => {
  it("applies migrations into the service schema, once, even when replicas race", async () => {
    const pool = createPgPool({ url: database.url, schema: "demo", applicationName: "test" });
    try {
      const folder = migrationsFolder();
      await Promise.all([
        runMigrations(pool, { schema: "demo", migrationsFolder: folder }),
        runMigrations(pool, { schema: "demo", migrationsFolder: folder }),
      ]);
      await runMigrations(pool, { schema: "demo", migrationsFolder: folder });
      const journal = await pool.query('SELECT count(*)::int AS n FROM demo."__migrations"');
      expect(journal.rows[0].n).toBe(1);
      // search_path points at the service schema, so unqualified names resolve there.
      await pool.query("INSERT INTO things (name) VALUES ('a')");
      expect((await pool.query("SELECT name FROM things")).rows).toEqual([{ name: "a" }]);
    } finally {
      await pool.end();
    }
  });

  it("rejects schema names that could inject SQL", () => {
    expect(() =>
      createPgPool({ url: database.url, schema: 'x"; drop', applicationName: "t" }),
    ).toThrow(/invalid schema/);
  });

  it("turns an unreachable database into a 503 error within the connect timeout", async () => {
    const url = new URL(database.url);
    url.port = String(await unusedPort());
    const pool = createPgPool({
      url: url.toString(),
      schema: "demo",
      applicationName: "t",
      connectTimeoutMs: 500,
    });
    try {
      await expect(guardPg(() => pool.query("SELECT 1"))).rejects.toBeInstanceOf(
        DependencyUnavailableError,
      );
    } finally {
      await pool.end();
    }
  });

  it("turns a paused database into a 503 error instead of a hang", async () => {
    const proxy = await TcpProxy.start({
      host: "127.0.0.1",
      port: Number(new URL(database.url).port || 5432),
    });
    const url = new URL(database.url);
    url.port = String(proxy.port);
    const pool = createPgPool({
      url: url.toString(),
      schema: "demo",
      applicationName: "t",
      connectTimeoutMs: 500,
      statementTimeoutMs: 500,
    });
    try {
      await pool.query("SELECT 1");
      proxy.pause();
      const started = Date.now();
      await expect(guardPg(() => pool.query("SELECT 1"))).rejects.toBeInstanceOf(
        DependencyUnavailableError,
      );
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await proxy.close();
      await pool.end().catch(() => undefined);
    }
  });
});

describe("isPgConnectionFailure", () => {
  it("sees a connection failure wrapped by drizzle in `cause`", async () => {
    const { isPgConnectionFailure } = await import("../src/index.ts");
    const driverError = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), {
      code: "ECONNREFUSED",
    });
    expect(
      isPgConnectionFailure(new Error("Failed query: select $1", { cause: driverError })),
    ).toBe(true);
    expect(
      isPgConnectionFailure(Object.assign(new Error("duplicate key"), { code: "23505" })),
    ).toBe(false);
  });
});
