import { afterAll, beforeAll } from "vitest";
import { createTokenVerifier } from "@svc/auth";
import { createPgPool } from "@svc/db";
import { createTempPgDatabase, createTestIssuer, platformContract, silentLogger, startApp, type StartedApp, type TempDatabase, TEST_AUDIENCE, TEST_ISSUER } from "@svc/testing";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";

let app: StartedApp;
let database: TempDatabase;
let pool: ReturnType<typeof createPgPool>;
const config = loadConfig({ ENVIRONMENT: "sandbox" });

beforeAll(async () => {
  database = await createTempPgDatabase();
  const issuer = await createTestIssuer();
  pool = createPgPool({ url: database.url, schema: "identity", applicationName: "test" });
  app = await startApp(createApp({ config, logger: silentLogger(), verify: createTokenVerifier({ keys: issuer.keys, issuer: TEST_ISSUER, audience: TEST_AUDIENCE }), pool }));
});
afterAll(async () => {
  await app.close();
  await pool.end();
  await database.drop();
});

platformContract("identity", () => app);
