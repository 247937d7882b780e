// `npm run webhooks -- <command>`: webhook tools for subscribers' developers, run from a checkout.
//   listen   follow the events feed and forward each event, signed, to a local URL
//            (services/webhooks/src/cli/listen.ts)
//   trigger  make an event of a type happen on the local stack or a sandbox (webhooks-trigger.ts)
import { runCli, UsageError, type CommandSpec, type Invocation } from "@svc/cli";
import { loadListenEnv } from "../services/webhooks/src/config.ts";
import { FatalError, listen, listenOptions } from "../services/webhooks/src/cli/listen.ts";
import { LISTEN_SPEC } from "../services/webhooks/src/cli/listen-spec.ts";
import { runTrigger, TRIGGER_SPEC, TriggerError } from "./webhooks-trigger.ts";

const WEBHOOKS_SPEC: CommandSpec = {
  name: "npm run webhooks --",
  summary: "Webhook tools for subscribers' developers.",
  subcommands: { listen: LISTEN_SPEC, trigger: TRIGGER_SPEC },
  examples: ["npm run webhooks -- listen --help", "npm run webhooks -- trigger --help"],
};

async function main(call: Invocation): Promise<number> {
  if (call.path[0] === "trigger") {
    try {
      return await runTrigger(call, process.env);
    } catch (err) {
      if (!(err instanceof TriggerError)) throw err;
      call.io.err(err.message);
      return 1;
    }
  }
  let env;
  try {
    env = loadListenEnv();
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\n\s*/g, " "));
  }
  const options = listenOptions(call, env);

  // Ctrl+C (or SIGTERM) ends the loop between two steps; the process then exits 0.
  const stop = new AbortController();
  for (const sig of ["SIGINT", "SIGTERM"] as const)
    process.once(sig, () => {
      call.io.out("Stopping.");
      stop.abort();
    });
  try {
    await listen(options, call.io.out, stop.signal);
    call.io.out("Stopped.");
    return 0;
  } catch (err) {
    if (!(err instanceof FatalError)) throw err;
    call.io.err(err.message);
    return 1;
  }
}

process.exitCode = await runCli(WEBHOOKS_SPEC, main);
