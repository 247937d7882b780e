// Applies every service's migrations to its own schema: the Kubernetes migrations Job runs this
// (a Helm pre-install/pre-upgrade hook), so pods never migrate in production.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createPgPool, runMigrations } from "@svc/db";
import { migrateConfig } from "./config.ts";

const SCHEMAS = ["auth", "practices", "vacancies", "identity", "webhooks"] as const;

const url = migrateConfig().databaseUrl;
for (const schema of SCHEMAS) {
  const folder = fileURLToPath(new URL(`../services/${schema}/drizzle`, import.meta.url));
  // Every service has migrations: a missing folder is a broken image, not a schema to skip.
  if (!existsSync(folder)) throw new Error(`no migrations for schema ${schema} at ${folder}`);
  const pool = createPgPool({
    url,
    schema,
    applicationName: "migrate",
    max: 1,
    statementTimeoutMs: 300_000,
  });
  try {
    await runMigrations(pool, { schema, migrationsFolder: folder });
    console.log(`migrated schema ${schema}`);
  } finally {
    await pool.end();
  }
}
