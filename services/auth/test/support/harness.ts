import { randomBytes } from "node:crypto";
import type { Meter } from "@opentelemetry/api";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRevocationFeed, type RevocationFeed } from "@svc/auth";
import { createPgPool, runMigrations } from "@svc/db";
import { connectNats, drainNats, jetstreamManager, type NatsConnection } from "@svc/messaging";
import {
  createTempPgDatabase,
  fetchJson,
  silentLogger,
  startApp,
  testEnv,
  type JsonResponse,
  type StartedApp,
  waitFor,
  sleep,
  type TempDatabase,
} from "@svc/testing";

export { sleep, waitFor };
import { createApp } from "../../src/app.ts";
import { ClientManager } from "../../src/domain/clients/client-manager.ts";
import { createDummyHash } from "../../src/domain/clients/credentials.ts";
import { PgClientStore } from "../../src/store/pg-client-store.ts";
import { loadConfig, type Config } from "../../src/config.ts";
import { MIGRATIONS_FOLDER } from "../../src/store/migrations.ts";
import { generateSigningJwk } from "../../src/domain/keys/local-keys.ts";
import { loadSigningKeys, type SigningKeys } from "../../src/domain/keys/signing-keys.ts";
import { kvRevocationPublisher } from "../../src/messaging/revocation-publisher.ts";

export const TEST_TOKEN_ISSUER = "http://localhost:8080";

/** A namespace no other test file uses (NATS_NAMESPACE allows 16 lower-case letters and digits). */
export function testNamespace(): string {
  return `t${randomBytes(5).toString("hex")}`;
}

export interface AuthUnderTest {
  app: StartedApp;
  config: Config;
  keys: SigningKeys;
  keysDir: string;
  manager: ClientManager;
  store: PgClientStore;
  feed: RevocationFeed;
  nc: NatsConnection;
  pool: ReturnType<typeof createPgPool>;
  database: TempDatabase;
  /** POST /oauth/token with Basic credentials (already encoded as given) and a form body. */
  token(
    clientId: string,
    secret: string,
    body?: string,
    headers?: Record<string, string>,
  ): Promise<JsonResponse>;
  close(): Promise<void>;
}

export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`, "utf8").toString("base64")}`;
}

/**
 * Starts the real auth app on port 0 against a fresh database, NATS namespace and key directory.
 */
export async function startAuth(
  env: Record<string, string> = {},
  options: { meter?: Meter } = {},
): Promise<AuthUnderTest> {
  const database = await createTempPgDatabase("auth");
  const pool = createPgPool({ url: database.url, schema: "auth", applicationName: "auth-test" });
  await runMigrations(pool, { schema: "auth", migrationsFolder: MIGRATIONS_FOLDER });
  const keysDir = await mkdtemp(join(tmpdir(), "auth-keys-"));
  const jwk = await generateSigningJwk();
  await writeFile(join(keysDir, `${String(jwk.kid)}.active.jwk.json`), JSON.stringify(jwk));
  const namespace = testNamespace();
  const config = loadConfig({
    ENVIRONMENT: "sandbox",
    NATS_SERVERS: testEnv.TEST_NATS_URL,
    NATS_NAMESPACE: namespace,
    TOKEN_ISSUER: TEST_TOKEN_ISSUER,
    SIGNING_KEYS_DIR: keysDir,
    ...env,
  });
  const nc = await connectNats({
    servers: [...config.NATS_SERVERS],
    name: "auth-test",
    logger: silentLogger(),
  });
  const feed = startRevocationFeed({
    config,
    name: "auth-test",
    logger: silentLogger(),
    connection: nc,
    probeIntervalMs: 200,
  });
  await feed.loaded;
  const keys = await loadSigningKeys(keysDir);
  const app = await startApp(
    createApp({
      config,
      logger: silentLogger(),
      pool,
      keys,
      dummyHash: await createDummyHash(),
      revocations: feed,
      ...(options.meter && { meter: options.meter }),
    }),
  );
  const store = new PgClientStore(pool);
  const manager = new ClientManager({
    store,
    environment: config.ENVIRONMENT,
    publish: kvRevocationPublisher(() => feed.bucket()),
  });
  const token = (
    clientId: string,
    secret: string,
    body = "grant_type=client_credentials",
    headers: Record<string, string> = {},
  ) =>
    fetchJson(`${app.baseUrl}/oauth/token`, {
      method: "POST",
      headers: {
        authorization: basic(clientId, secret),
        "content-type": "application/x-www-form-urlencoded",
        ...headers,
      },
      body,
    });
  const close = async () => {
    await app.close();
    await feed.stop();
    await deleteNamespaceStreams(nc, namespace);
    await drainNats(nc);
    await pool.end();
    await database.drop();
    await rm(keysDir, { recursive: true, force: true });
  };
  return { app, config, keys, keysDir, manager, store, feed, nc, pool, database, token, close };
}

/** Deletes every stream (KV buckets included) of a test namespace. */
export async function deleteNamespaceStreams(nc: NatsConnection, namespace: string): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const doomed: string[] = [];
  for await (const name of jsm.streams.names()) {
    if (name.startsWith(`KV_${namespace}_`) || name.startsWith(`${namespace.toUpperCase()}_`))
      doomed.push(name);
  }
  await Promise.all(doomed.map((name) => jsm.streams.delete(name)));
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
