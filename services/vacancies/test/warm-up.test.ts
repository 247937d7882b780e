import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection, type Connection, type RowDataPacket } from "mysql2/promise";
import { createTokenVerifier, warmUpAccess } from "@svc/auth";
import { createLegacyDb, type LegacyDb } from "@svc/db";
import {
  createTestIssuer,
  fetchJson,
  recordingClient,
  silentLogger,
  startApp,
  testEnv,
  TEST_AUDIENCE,
  TEST_ISSUER,
  type StartedApp,
  waitFor,
  type TempDatabase,
} from "@svc/testing";
import { createApp } from "../src/app.ts";
import { MysqlVacancySource } from "../src/source/mysql-vacancy-source.ts";
import { vacancyWarmUp } from "../src/warm-up.ts";
import { config, NOON_ON_TODAY, seededLegacyDatabase } from "./support/harness.ts";

// The start-up warm-up (docs/decisions/cold-start-warm-up.md) against the real app on loopback and
// a real legacy database: what it leaves warm, and that its credential dies with it.
const POOL = 4;
let database: TempDatabase;
let admin: Connection;
let legacy: LegacyDb;
let app: StartedApp;
const sent: string[] = [];
const access = warmUpAccess(
  createTokenVerifier({
    keys: (await createTestIssuer()).keys,
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
  }),
  ["vacancies:read"],
);
let reloads = 0;

beforeAll(async () => {
  database = await seededLegacyDatabase(0.1);
  admin = await createConnection({ uri: testEnv.TEST_MYSQL_URL });
  // The seeding connection's end reaches the server asynchronously: wait for it to leave, so
  // that every connection counted below is the app's.
  await waitFor(
    "no connection to the database",
    async () => (await connectionsTo(database.name)) === 0,
  );
  legacy = createLegacyDb({ url: database.url, connectionLimit: POOL });
  app = await startApp(
    createApp({
      config,
      logger: silentLogger(),
      verify: access.verify,
      vacancies: new MysqlVacancySource(
        recordingClient(() => legacy, sent),
        config.TIME_ZONE,
      ),
      now: () => NOON_ON_TODAY,
    }),
  );
});
afterAll(async () => {
  await app.close();
  await legacy.close();
  await admin.end();
  await database.drop();
});

async function connectionsTo(name: string): Promise<number> {
  const [rows] = await admin.query<RowDataPacket[]>(
    "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ?",
    [name],
  );
  return Number(rows[0]?.n);
}

describe("the vacancies start-up warm-up", () => {
  it("opens every legacy connection, fetches the keys, reads through the API, then refuses its credential", async () => {
    // The app's start may have opened one of its pool's connections (the index hints read).
    expect(await connectionsTo(database.name)).toBeLessThan(POOL);
    const list = await fetchJson(`${app.baseUrl}/v1/vacancies?per_page=5`, {
      headers: { authorization: access.authorization },
    });
    expect(list.status).toBe(200);
    sent.length = 0;

    await vacancyWarmUp({
      connect: [() => legacy.openConnections()],
      access,
      keys: { reload: async () => void reloads++ },
      concurrency: POOL,
      requests: 40,
    })({ origin: app.baseUrl });

    expect(await connectionsTo(database.name)).toBe(POOL);
    expect(reloads).toBe(1);
    // Every request asked the source: the first list, then 40 reads of which the metadata ones
    // read the reference lists (two statements each).
    expect(sent.length).toBeGreaterThanOrEqual(41);
    expect(sent.some((sql) => /COUNT\(/i.test(sql))).toBe(true);
    expect(sent.some((sql) => /WHERE v\.uuid = \?/.test(sql))).toBe(true);

    const after = await fetchJson(`${app.baseUrl}/v1/vacancies?per_page=5`, {
      headers: { authorization: access.authorization },
    });
    expect(after.status).toBe(401);
  });

  it("fails, for readiness to count as warmed, when the legacy database cannot be reached", async () => {
    const unreachable = createLegacyDb({
      url: "mysql://root@127.0.0.1:1/none",
      connectTimeoutMs: 500,
      connectionLimit: 2,
    });
    const spare = warmUpAccess(async () => Promise.reject(new Error("unused")), []);
    try {
      await expect(
        vacancyWarmUp({
          connect: [() => unreachable.openConnections()],
          access: spare,
          concurrency: 2,
        })({
          origin: app.baseUrl,
        }),
      ).rejects.toMatchObject({ code: "LEGACY_SOURCE_UNAVAILABLE" });
    } finally {
      await unreachable.close();
    }
    await expect(spare.verify(spare.authorization)).rejects.toThrow("unused");
  });
});
