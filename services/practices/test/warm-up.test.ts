import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection, type Connection, type RowDataPacket } from "mysql2/promise";
import { createTokenVerifier, warmUpAccess } from "@svc/auth";
import { createLegacyDb, type LegacyDb } from "@svc/db";
import {
  createTestIssuer,
  fetchJson,
  silentLogger,
  startApp,
  testEnv,
  TEST_AUDIENCE,
  TEST_ISSUER,
  type StartedApp,
  type TempDatabase,
} from "@svc/testing";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { MysqlPracticeSource } from "../src/source/mysql-practice-source.ts";
import { practiceWarmUp } from "../src/warm-up.ts";
import { NOW, seedLegacy, unusedMirror } from "./support/harness.ts";

// The start-up warm-up (docs/decisions/cold-start-warm-up.md) against the real app on loopback and
// a real legacy database.
const POOL = 3;
let database: TempDatabase;
let admin: Connection;
let legacy: LegacyDb;
let app: StartedApp;
let reads = 0;
const access = warmUpAccess(
  createTokenVerifier({
    keys: (await createTestIssuer()).keys,
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
  }),
  ["practices:read"],
);

beforeAll(async () => {
  database = await seedLegacy(0.1);
  admin = await createConnection({ uri: testEnv.TEST_MYSQL_URL });
  legacy = createLegacyDb({ url: database.url, connectionLimit: POOL });
  const counted: LegacyDb = {
    ...legacy,
    query: (sql, params) => {
      reads++;
      return legacy.query(sql, params);
    },
  };
  app = await startApp(
    createApp({
      config: loadConfig({ ENVIRONMENT: "sandbox" }),
      logger: silentLogger(),
      verify: access.verify,
      practices: new MysqlPracticeSource(counted),
      crmMirror: unusedMirror,
      now: () => NOW,
    }),
  );
});
afterAll(async () => {
  await app.close();
  await legacy.close();
  await admin.end();
  await database.drop();
});

describe("the practices start-up warm-up", () => {
  it("opens every legacy connection, reads through the API, then refuses its credential", async () => {
    await practiceWarmUp({
      connect: [() => legacy.openConnections()],
      access,
      concurrency: POOL,
      requests: 30,
    })({
      origin: app.baseUrl,
    });
    const [rows] = await admin.query<RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ?",
      [database.name],
    );
    expect(Number(rows[0]?.n)).toBe(POOL);
    expect(reads).toBeGreaterThanOrEqual(31);
    const after = await fetchJson(`${app.baseUrl}/v1/practices?per_page=5`, {
      headers: { authorization: access.authorization },
    });
    expect(after.status).toBe(401);
  });
});
