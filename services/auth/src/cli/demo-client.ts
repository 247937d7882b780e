import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { scopesFor } from "@svc/auth";
import { createPgPool } from "@svc/db";
import { stateOf } from "../domain/clients/client.ts";
import { ClientManager } from "../domain/clients/client-manager.ts";
import type { Environment } from "../domain/clients/client-scopes.ts";
import { verifySecret } from "../domain/clients/credentials.ts";
import { PgClientStore } from "../store/pg-client-store.ts";

export interface DemoClient {
  clientId: string;
  clientSecret: string;
  /** false when the one from an earlier start was still there and still works. */
  created: boolean;
}

export interface DemoClientOptions {
  /** The local PostgreSQL database (auth schema migrated by the auth service at start). */
  databaseUrl: string;
  /** Where the credentials are kept between starts (gitignored .local/). */
  file: string | URL;
  environment?: Environment;
}

async function remembered(
  file: string | URL,
): Promise<{ client_id: string; client_secret: string } | undefined> {
  try {
    const saved = JSON.parse(await readFile(file, "utf8")) as {
      client_id?: unknown;
      client_secret?: unknown;
    };
    return typeof saved.client_id === "string" && typeof saved.client_secret === "string"
      ? { client_id: saved.client_id, client_secret: saved.client_secret }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `npm start`'s demo client: every sandbox scope, created once and reused across restarts. Made
 * again when the saved one is gone from the database (a fresh database), no longer active, or no
 * longer matches its secret.
 */
export async function ensureDemoClient(options: DemoClientOptions): Promise<DemoClient> {
  const pool = createPgPool({
    url: options.databaseUrl,
    schema: "auth",
    applicationName: "demo-client",
    max: 1,
  });
  try {
    const store = new PgClientStore(pool);
    const saved = await remembered(options.file);
    const existing = saved ? await store.find(saved.client_id) : undefined;
    if (
      saved &&
      existing &&
      stateOf(existing, Date.now()) === "active" &&
      (await verifySecret(existing.secretHash, saved.client_secret))
    ) {
      return { clientId: saved.client_id, clientSecret: saved.client_secret, created: false };
    }
    const manager = new ClientManager({
      store,
      environment: options.environment ?? "sandbox",
      publish: () => Promise.reject(new Error("not needed: no expiry")),
    });
    const { client, secret } = await manager.create({
      name: "Local demo client (npm start)",
      scopes: scopesFor("sandbox"),
    });
    const path = typeof options.file === "string" ? options.file : fileURLToPath(options.file);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(
      path,
      `${JSON.stringify({ client_id: client.id, client_secret: secret }, null, 2)}\n`,
      { mode: 0o600 },
    );
    return { clientId: client.id, clientSecret: secret, created: true };
  } finally {
    await pool.end();
  }
}
