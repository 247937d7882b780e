// The work of `npm run clients` once its command line parsed: the auth service's configuration
// (DATABASE_URL, ENVIRONMENT, NATS_SERVERS, NATS_NAMESPACE), its database and the revocations bucket.
import {
  REVOCATION_BUCKET_OPTIONS,
  encodeRevocation,
  revocationKey,
  type ClientRevocation,
} from "@svc/auth";
import type { Invocation } from "@svc/cli";
import { createPgPool } from "@svc/db";
import {
  connectNats,
  drainNats,
  jetStreamTopology,
  type KV,
  names,
  type NatsConnection,
  natsConnectSettings,
  openKv,
} from "@svc/messaging";
import { ClientManager } from "../domain/clients/client-manager.ts";
import { PgClientStore } from "../store/pg-client-store.ts";
import { loadConfig, SERVICE_NAME } from "../config.ts";
import { clientCommand } from "./client-commands.ts";

/** Runs one parsed `clients` command against the service's database; the exit code. */
export async function runClients(call: Invocation): Promise<number> {
  const config = loadConfig();
  const pool = createPgPool({
    url: config.DATABASE_URL,
    schema: SERVICE_NAME,
    applicationName: `${SERVICE_NAME}-cli`,
    max: 2,
  });
  let nats: { nc: NatsConnection; kv: KV } | undefined;
  const quiet = {
    info: () => {},
    warn: () => {},
    error: (_obj: object, msg: string) => call.io.err(msg),
  };

  // NATS is only needed by commands that revoke or expire, so it is connected on first use.
  async function publish(revocation: ClientRevocation): Promise<void> {
    if (!nats) {
      const nc = await connectNats({
        ...natsConnectSettings(config),
        name: `${SERVICE_NAME}-cli`,
        logger: quiet,
        connectTimeoutMs: 3_000,
      });
      nats = {
        nc,
        kv: await openKv(nc, names(config.NATS_NAMESPACE).revocationsBucket, {
          ...REVOCATION_BUCKET_OPTIONS,
          topology: jetStreamTopology(config),
        }),
      };
    }
    await nats.kv.put(revocationKey(revocation.clientId), encodeRevocation(revocation));
  }

  const manager = new ClientManager({
    store: new PgClientStore(pool),
    environment: config.ENVIRONMENT,
    publish,
  });
  try {
    return await clientCommand(manager, config.ENVIRONMENT, call);
  } finally {
    if (nats) await drainNats(nats.nc, { timeoutMs: 2_000 });
    await pool.end();
  }
}
