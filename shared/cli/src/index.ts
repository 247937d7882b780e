/**
 * The conventions every command-line tool of the product follows: `--help`/`-h` print the usage
 * to stdout and exit 0; an unknown option or a missing or invalid argument prints a one-line
 * error and the usage to stderr and exits 2; credentials passed in are never printed.
 */
import { parseCommand, usage, UsageError, type CommandSpec, type OptionValues } from "./command.ts";
import { environmentValues } from "./config.ts";
import { redactor, secretEnvOf } from "./redact.ts";

export { parseCommand, usage, UsageError };
export type { CommandSpec, OptionSpec, OptionValues, Parsed } from "./command.ts";
export { MASK, redactor } from "./redact.ts";
export { API_CLIENT_OPTIONS, apiClientArgs, type ApiClientArgs } from "./api-client.ts";

/** Exit code of a usage error. */
export const USAGE_EXIT = 2;

/** Where a command prints; every line is masked of the credentials it was given. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** One parsed call, handed to the command's code. */
export interface Invocation {
  /** Subcommand names from the top, e.g. `["create"]`. */
  path: string[];
  values: OptionValues;
  args: string[];
  io: CliIo;
  /** Also masks credentials: for a message built outside `io` (a library's error). */
  redact: (text: string) => string;
  /** A string option's value, if given. */
  string: (name: string) => string | undefined;
  /** Whether a boolean option was given. */
  flag: (name: string) => boolean;
}

export interface CliContext {
  argv?: readonly string[];
  env?: Readonly<Record<string, string | undefined>>;
  /** Unmasked sinks; the process's stdout and stderr by default. */
  print?: CliIo;
}

const PROCESS_IO: CliIo = { out: (l) => console.log(l), err: (l) => console.error(l) };

/**
 * Parses the command line against `spec` and runs `main` with it; resolves with the exit code.
 * `main` throws a UsageError for an argument it finds invalid; any other error it throws is
 * printed (masked) as one line and exits 1, so a command decides its own failures by catching.
 */
export async function runCli(
  spec: CommandSpec,
  main: (call: Invocation) => Promise<number>,
  context: CliContext = {},
): Promise<number> {
  const argv = context.argv ?? process.argv.slice(2);
  const print = context.print ?? PROCESS_IO;
  const redact = redactor(spec, argv, context.env ?? environmentValues(secretEnvOf(spec)));
  const io: CliIo = { out: (l) => print.out(redact(l)), err: (l) => print.err(redact(l)) };
  const parsed = parseCommand(spec, argv);
  const fail = (failing: CommandSpec, message: string): number => {
    io.err(`${failing.name}: ${message}`);
    io.err("");
    io.err(usage(failing));
    return USAGE_EXIT;
  };
  if (parsed.kind === "help") return (io.out(usage(parsed.spec)), 0);
  if (parsed.kind === "error") return fail(parsed.spec, parsed.message);
  const { values } = parsed;
  try {
    return await main({
      path: parsed.path,
      values,
      args: parsed.args,
      io,
      redact,
      string: (name) => (typeof values[name] === "string" ? values[name] : undefined),
      flag: (name) => values[name] === true,
    });
  } catch (err) {
    if (err instanceof UsageError) return fail(parsed.spec, err.message);
    io.err(`${spec.name}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
