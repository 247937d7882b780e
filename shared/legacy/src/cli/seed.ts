/**
 * npm run sandbox:seed -- --seed 42 --scale 1 [--today 2025-06-15] [--database legacy_sandbox]
 * [--url mysql://root@127.0.0.1:3306] [--if-empty]; without --url/--database it writes where
 * LEGACY_DATABASE_URL points (the chart's seeding Job sets it).
 *
 * (Re)loads the synthetic legacy data set into a sandbox database. Refuses databases it did not
 * create.
 */
import { parseArgs } from "node:util";
import { brusselsDate } from "../brussels-time.ts";
import { PER_SCALE } from "../generator/dataset.ts";
import { openServerConnection } from "../load/connection.ts";
import { SandboxRefusedError } from "../load/sandbox-guard.ts";
import { seedDatabase, type SeedMode } from "../load/seed-database.ts";
import { seedTarget } from "./config.ts";

const USAGE = `usage: npm run sandbox:seed -- [options]
  --seed N          generator seed (default 1)
  --scale S         bulk volume multiplier (default 1 = ${PER_SCALE.vacancies} vacancies; 50 = ${50 * PER_SCALE.vacancies})
  --today DATE      reference date YYYY-MM-DD (default: today in Europe/Brussels)
  --database NAME   sandbox database (default: the database of LEGACY_DATABASE_URL, else legacy_sandbox)
  --url URL         server (default: the server of LEGACY_DATABASE_URL, else mysql://root@127.0.0.1:3306)
  --if-empty        keep a complete data set that is already there instead of reloading it
                    (the chart's seeding Job, so an upgrade does not replace the sandbox's data)`;

function parse(): {
  seed: number;
  scale: number;
  today: string;
  database: string;
  url: string;
  mode: SeedMode;
} | null {
  const target = seedTarget();
  const { values } = parseArgs({
    options: {
      seed: { type: "string", default: "1" },
      scale: { type: "string", default: "1" },
      today: { type: "string" },
      database: { type: "string", default: target.database },
      url: { type: "string", default: target.url },
      "if-empty": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) return null;
  return {
    seed: Number(values.seed),
    scale: Number(values.scale),
    today: values.today ?? brusselsDate(Date.now()),
    database: values.database,
    url: values.url,
    mode: values["if-empty"] ? "if-absent" : "replace",
  };
}

async function main(): Promise<number> {
  let args;
  try {
    args = parse();
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (!args) {
    console.log(USAGE);
    return 0;
  }
  const connection = await openServerConnection(args.url);
  try {
    const { seed, scale, today } = args;
    const result = await seedDatabase(
      connection,
      args.database,
      { seed, scale, today },
      args.mode,
      (m) => console.log(m),
    );
    console.log(
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
    console.error(
      error instanceof SandboxRefusedError || error instanceof RangeError ? error.message : error,
    );
    return 1;
  } finally {
    await connection.end();
  }
}

process.exitCode = await main();
