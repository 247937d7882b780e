/**
 * npm run sandbox:seed -- --seed 42 --scale 1 [--today 2025-06-15] [--database legacy_sandbox]
 * [--url mysql://root@127.0.0.1:3306] [--if-empty]; without --url/--database it writes where
 * LEGACY_DATABASE_URL points (the chart's seeding Job sets it).
 *
 * (Re)loads the synthetic legacy data set into a sandbox database. Refuses databases it did not
 * create.
 */
import { runCli, UsageError, type CommandSpec, type Invocation } from "@svc/cli";
import { brusselsDate } from "../brussels-time.ts";
import { PER_SCALE, validateDatasetOptions } from "../generator/dataset.ts";
import { openServerConnection } from "../load/connection.ts";
import { SandboxRefusedError } from "../load/sandbox-guard.ts";
import { seedDatabase } from "../load/seed-database.ts";
import { seedTarget } from "./config.ts";

const SPEC: CommandSpec = {
  name: "npm run sandbox:seed --",
  summary:
    "(Re)loads the synthetic legacy data set into a sandbox database; refuses databases it did not create.",
  options: {
    seed: { type: "string", value: "<n>", description: "generator seed (default 1)" },
    scale: {
      type: "string",
      value: "<s>",
      description: `bulk volume multiplier (default 1 = ${PER_SCALE.vacancies} vacancies; 50 = ${50 * PER_SCALE.vacancies})`,
    },
    today: {
      type: "string",
      value: "<YYYY-MM-DD>",
      description: "reference date (default: today in Europe/Brussels)",
    },
    database: {
      type: "string",
      value: "<name>",
      description:
        "sandbox database (default: the database of $LEGACY_DATABASE_URL, else legacy_sandbox)",
    },
    url: {
      type: "string",
      value: "<url>",
      secret: true,
      description:
        "server (default: the server of $LEGACY_DATABASE_URL, else mysql://root@127.0.0.1:3306)",
    },
    "if-empty": {
      type: "boolean",
      description:
        "keep a complete data set that is already there instead of reloading it (the chart's seeding Job)",
    },
    json: {
      type: "boolean",
      description: "print only the result as JSON on stdout (progress goes to stderr)",
    },
  },
  secretEnv: ["LEGACY_DATABASE_URL"],
  json: [
    '{"action": "created|replaced|kept", "database", "seed", "scale", "today",',
    ' "counts": {"<table>": <rows>, ...} (when loaded), "seconds"}',
  ],
  examples: ["npm run sandbox:seed -- --seed 42 --scale 1 --today 2025-06-15"],
  notes: ["Without --json the same JSON is the last line, after the progress lines."],
};

/** The options, checked by the generator's own rules before anything connects. */
function parse(call: Invocation) {
  const target = seedTarget();
  const options = {
    seed: Number(call.string("seed") ?? "1"),
    scale: Number(call.string("scale") ?? "1"),
    today: call.string("today") ?? brusselsDate(Date.now()),
  };
  try {
    validateDatasetOptions(options);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message);
    throw error;
  }
  return {
    options,
    database: call.string("database") ?? target.database,
    url: call.string("url") ?? target.url,
    mode: call.flag("if-empty") ? ("if-absent" as const) : ("replace" as const),
  };
}

async function main(call: Invocation): Promise<number> {
  const args = parse(call);
  const { io } = call;
  const json = call.flag("json");
  const connection = await openServerConnection(args.url);
  try {
    const result = await seedDatabase(
      connection,
      args.database,
      args.options,
      args.mode,
      json ? io.err : io.out,
    );
    io.out(
      JSON.stringify({
        action: result.action,
        database: result.database,
        ...result.options,
        counts: result.counts,
        seconds: +(result.durationMs / 1000).toFixed(2),
      }),
    );
    return 0;
  } catch (error) {
    if (!(error instanceof SandboxRefusedError || error instanceof RangeError)) throw error;
    io.err(error.message);
    return 1;
  } finally {
    await connection.end();
  }
}

process.exitCode = await runCli(SPEC, main);
