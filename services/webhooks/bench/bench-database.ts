import { createPgPool, runMigrations } from "@svc/db";
import { createTempPgDatabase } from "@svc/testing";
import { MIGRATIONS_FOLDER } from "../src/store/migrations.ts";

/** A private PostgreSQL database with the webhooks schema migrated, and a pool of `max` on it. */
export async function webhooksBenchDatabase(prefix: string, applicationName: string, max: number) {
  const database = await createTempPgDatabase(prefix);
  const pool = createPgPool({ url: database.url, schema: "webhooks", applicationName, max });
  await runMigrations(pool, { schema: "webhooks", migrationsFolder: MIGRATIONS_FOLDER });
  return { database, pool };
}
