// A relay in its own process, for the SIGKILL test: `node relay-child.ts '<json options>'`.
// It publishes slowly (a pause before each batch is marked sent) so the kill lands mid-stream.
import pg from "pg";
import { connectNats, jetstream, jetstreamManager, names } from "@svc/messaging";
import { startRelay } from "../../src/index.ts";
import { sleep } from "@svc/time";

const { pgUrl, schema, natsUrl, namespace } = JSON.parse(process.argv[2] ?? "{}") as Record<
  string,
  string
>;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const nc = await connectNats({ servers: natsUrl as string, name: "relay-child", logger: quiet });
startRelay({
  pool: new pg.Pool({ connectionString: pgUrl }),
  schema: schema as string,
  js: jetstream(nc),
  jsm: await jetstreamManager(nc),
  names: names(namespace as string),
  logger: quiet,
  batchSize: 50,
  pollMs: 10,
  afterPublish: () => sleep(20),
});
process.stdout.write("ready\n");
