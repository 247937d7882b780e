import { afterAll, beforeAll } from "vitest";
import { createTokenVerifier } from "@svc/auth";
import { createLegacyDb, createPgPool } from "@svc/db";
import { createTempPgDatabase, createTestIssuer, platformContract, silentLogger, startApp, type StartedApp, type TempDatabase, TEST_AUDIENCE, TEST_ISSUER } from "@svc/testing";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";

let app: StartedApp;
let database: TempDatabase;
let pool: ReturnType<typeof createPgPool>;
let legacy: ReturnType<typeof createLegacyDb>;
const config = loadConfig({ ENVIRONMENT: "sandbox" });

beforeAll(async () => {
  database = await createTempPgDatabase();
  const issuer = await createTestIssuer();
  legacy = createLegacyDb({ url: config.LEGACY_DATABASE_URL });
  pool = createPgPool({ url: database.url, schema: "vacancies", applicationName: "test" });
  app = await startApp(createApp({ config, logger: silentLogger(), verify: createTokenVerifier({ keys: issuer.keys, issuer: TEST_ISSUER, audience: TEST_AUDIENCE }), legacy, pool }));
});
afterAll(async () => {
  await app.close();
  await legacy.close();
  await pool.end();
  await database.drop();
});

platformContract("vacancies", () => app);
