import { ensureSandbox } from "@svc/sandbox";
import type { LocalStackConfig } from "./config.ts";

/**
 * Loads the synthetic sandbox data set into its own legacy database on first start
 * (shared/legacy; never over an existing non-sandbox database).
 */
export async function prepareSandbox(config: LocalStackConfig): Promise<void> {
  await ensureSandbox({
    url: config.mysqlUrl,
    database: config.legacyDatabase,
    log: (line: string) => console.log(`sandbox: ${line}`),
  });
}

/** Creates (once) a local demo client with every scope and returns how to use it. */
export async function prepareDemoClient(config: LocalStackConfig): Promise<string | undefined> {
  // Imported here so the launcher loads the auth service's code only once the stack is up.
  const { ensureDemoClient } = await import("../services/auth/src/cli/demo-client.ts");
  const environment = config.childEnv.ENVIRONMENT === "production" ? "production" : "sandbox";
  let demo: Awaited<ReturnType<typeof ensureDemoClient>>;
  try {
    demo = await ensureDemoClient({
      databaseUrl: config.pgUrl,
      file: config.demoClientFile,
      environment,
    });
  } catch (err) {
    // The stack is up; a missing demo client must not take it down.
    return `Demo client could not be prepared (${(err as Error).message}); create one with: npm run clients -- create --name demo --all-scopes`;
  }
  return [
    `Demo client (every sandbox scope${demo.created ? ", just created" : ""}; kept in ${config.demoClientFile}):`,
    `  client_id:     ${demo.clientId}`,
    `  client_secret: ${demo.clientSecret}`,
    `  curl -s -u '${demo.clientId}:${demo.clientSecret}' -d grant_type=client_credentials ${config.baseUrl}/oauth/token`,
  ].join("\n");
}
