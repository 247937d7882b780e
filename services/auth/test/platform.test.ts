import { afterAll, beforeAll } from "vitest";
import { createPgPool } from "@svc/db";
import { createTempPgDatabase, platformContract, silentLogger, startApp, type StartedApp, type TempDatabase } from "@svc/testing";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";

let app: StartedApp;
let database: TempDatabase;
let pool: ReturnType<typeof createPgPool>;
const config = loadConfig({ ENVIRONMENT: "sandbox" });

beforeAll(async () => {
  database = await createTempPgDatabase();
  pool = createPgPool({ url: database.url, schema: "auth", applicationName: "test" });
  app = await startApp(createApp({ config, logger: silentLogger(), pool }));
});
afterAll(async () => {
  await app.close();
  await pool.end();
  await database.drop();
});

platformContract("auth", () => app);
