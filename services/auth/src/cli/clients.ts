// `npm run clients -- <command>`: manage OAuth clients (create, list, rotate, revoke, expire).
// The database and NATS modules load only once the command line parsed, so --help and a usage
// error answer at once and need neither.
import { runCli } from "@svc/cli";
import { CLIENTS_SPEC } from "./clients-spec.ts";

process.exit(
  await runCli(CLIENTS_SPEC, async (call) => (await import("./clients-run.ts")).runClients(call)),
);
