// `npm run webhooks -- <command>`: webhook tools for subscribers' developers.
//   listen   follow the events feed and forward each event, signed, to a local URL (listen.ts)
import { loadListenEnv } from "../config.ts";
import { FatalError, listen, LISTEN_USAGE, parseListenArgs } from "./listen.ts";

const USAGE = `Usage: npm run webhooks -- <command>

Commands:
  listen   forward events to a local URL, signed like real deliveries

${LISTEN_USAGE}`;

const [command, ...args] = process.argv.slice(2);
if (command !== "listen") {
  console.error(
    command === undefined || command === "help" ? USAGE : `unknown command: ${command}\n\n${USAGE}`,
  );
  process.exit(command === "help" ? 0 : 2);
}
let env;
try {
  env = loadListenEnv();
} catch (err) {
  console.error((err as Error).message);
  process.exit(2);
}
const options = parseListenArgs(args, env);
if (typeof options === "string") {
  console.error(`${options}\n\n${LISTEN_USAGE}`);
  process.exit(2);
}

// Ctrl+C (or SIGTERM) ends the loop between two steps; the process then exits 0.
const stop = new AbortController();
for (const sig of ["SIGINT", "SIGTERM"] as const)
  process.once(sig, () => {
    console.log("Stopping.");
    stop.abort();
  });

try {
  await listen(options, (line) => console.log(line), stop.signal);
  console.log("Stopped.");
} catch (err) {
  console.error(err instanceof FatalError ? err.message : err);
  process.exitCode = 1;
}
