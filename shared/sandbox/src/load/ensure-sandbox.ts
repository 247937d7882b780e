import { brusselsDate } from "../brussels-time.ts";
import { openServerConnection } from "./connection.ts";
import { seedDatabase } from "./seed-database.ts";
import type { SeedLog, SeedResult } from "./seed-database.ts";

export type EnsureSandboxOptions = {
  /** Server URL, e.g. `mysql://root@127.0.0.1:3306`. */
  url: string;
  /** Sandbox database name, e.g. `legacy_sandbox`; letters, digits and `_` only. */
  database: string;
  /** Generator seed (default 1). */
  seed?: number;
  /** Bulk volume multiplier (default 1; see PER_SCALE). */
  scale?: number;
  /** Reference date `YYYY-MM-DD`; defaults to today's date in Europe/Brussels. */
  today?: string;
  log?: SeedLog;
};

/**
 * For the local launcher: creates the sandbox database and loads schema and data on first start
 * only. A complete sandbox of the current schema version is kept as is (whatever seed it was made
 * with); an interrupted load or an older schema version is reloaded. A database holding tables
 * the generator did not create is never touched: SandboxRefusedError.
 */
export async function ensureSandbox(options: EnsureSandboxOptions): Promise<SeedResult> {
  const connection = await openServerConnection(options.url);
  try {
    const dataset = {
      seed: options.seed ?? 1,
      scale: options.scale ?? 1,
      today: options.today ?? brusselsDate(Date.now()),
    };
    return await seedDatabase(connection, options.database, dataset, "if-absent", options.log);
  } finally {
    await connection.end();
  }
}
