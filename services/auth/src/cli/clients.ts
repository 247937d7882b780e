// `npm run clients -- <command>`: manage OAuth clients (create, list, rotate, revoke, expire).
// Uses the auth service's configuration (DATABASE_URL, ENVIRONMENT, NATS_SERVERS, NATS_NAMESPACE).
import {
  REVOCATION_BUCKET_OPTIONS,
  encodeRevocation,
  revocationKey,
  type ClientRevocation,
} from "@svc/auth";
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
import { runClientCommand } from "./client-commands.ts";

const config = loadConfig();
const pool = createPgPool({
  url: config.DATABASE_URL,
  schema: SERVICE_NAME,
  applicationName: `${SERVICE_NAME}-cli`,
  max: 2,
});
const quiet = {
  info: () => {},
  warn: () => {},
  error: (_obj: object, msg: string) => console.error(msg),
};
let nats: { nc: NatsConnection; kv: KV } | undefined;

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
let code: number;
try {
  code = await runClientCommand(manager, config.ENVIRONMENT, process.argv.slice(2), {
    out: (l) => console.log(l),
    err: (l) => console.error(l),
  });
} catch (err) {
  console.error(`clients: ${(err as Error).message}`);
  code = 1;
} finally {
  if (nats) await drainNats(nats.nc, { timeoutMs: 2_000 });
  await pool.end();
}
process.exit(code);
