import type pg from "pg";
import type { RevocationFeed } from "@svc/auth";
import type { ProcessTask } from "@svc/host";
import type { Logger } from "@svc/logging";
import { LOCAL_SIGNING_KEYS_DIR, loadConfig, type Config } from "./config.ts";
import { createDummyHash } from "./domain/clients/credentials.ts";
import { ensureLocalSigningKeys } from "./domain/keys/local-keys.ts";
import { loadSigningKeys, type SigningKeys } from "./domain/keys/signing-keys.ts";
import { scheduleReconciliation } from "./messaging/revocation-publisher.ts";
import { PgClientStore } from "./store/pg-client-store.ts";

/**
 * The configuration and the signing keys, whose failures are reported alike before anything
 * starts. Kubernetes mounts the keys (SIGNING_KEYS_DIR); on one machine they are generated once
 * and kept.
 */
export async function loadConfigAndKeys(): Promise<Config & { signingKeys: SigningKeys }> {
  const config = loadConfig();
  if (config.SIGNING_KEYS_DIR === undefined) await ensureLocalSigningKeys(LOCAL_SIGNING_KEYS_DIR);
  const signingKeys = await loadSigningKeys(config.SIGNING_KEYS_DIR ?? LOCAL_SIGNING_KEYS_DIR);
  return { ...config, signingKeys };
}

/** What the auth process's adapters and tasks use of its host (@svc/host). */
export interface AuthHost {
  config: Config & { signingKeys: SigningKeys };
  logger: Logger;
  pool: pg.Pool;
  revocations: RevocationFeed;
}

/** The dummy hash unknown client ids are checked against, once the keys in use are logged. */
export async function authAdapters({ config, logger }: AuthHost) {
  const keys = config.signingKeys;
  logger.info(
    { active_kid: keys.active.kid, published_kids: keys.jwks.keys.map((k) => k.kid) },
    "signing keys loaded",
  );
  return { keys, dummyHash: await createDummyHash() };
}

/** Re-publishes revocations and expiries from the database to the bucket, in every replica. */
export function authTasks({ config, logger, pool, revocations }: AuthHost): ProcessTask[] {
  return [
    {
      name: "revocation reconciliation",
      start: () =>
        scheduleReconciliation(revocations, {
          store: new PgClientStore(pool),
          logger,
          intervalMs: config.REVOCATION_RECONCILE_INTERVAL_MS,
        }),
    },
  ];
}
