// Applies every service's migrations to its own schema: the Kubernetes migrations Job runs this
// (a Helm pre-install/pre-upgrade hook), so pods never migrate in production.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createPgPool, runMigrations } from "@svc/db";
import { SCHEMA_MIGRATIONS } from "@svc/manifest";
import { migrateConfig } from "./config.ts";

const url = migrateConfig().databaseUrl;
// Every service's schema, in the manifest's order.
for (const { schema, folder: fromRoot } of SCHEMA_MIGRATIONS) {
  const folder = fileURLToPath(new URL(`../${fromRoot}`, import.meta.url));
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
