/**
 * One command line, declared once: its options (with descriptions), positional arguments and
 * subcommands. From the declaration come the usage text and the parse, on Node's util.parseArgs.
 */
import { parseArgs } from "node:util";

export interface OptionSpec {
  type: "string" | "boolean";
  description: string;
  /** One letter: `-x`. */
  short?: string;
  /** The value's placeholder in the usage, e.g. `<url>` (string options). */
  value?: string;
  /** A credential: its value (or a URL's password) never appears in anything printed. */
  secret?: boolean;
}

export interface CommandSpec {
  /** How it is run, e.g. `npm run clients -- rotate`. */
  name: string;
  /** One or two sentences: what it does. */
  summary: string;
  /** Required positional arguments, in order, e.g. `<client_id>`. */
  args?: readonly string[];
  options?: Readonly<Record<string, OptionSpec>>;
  /** Commands under this one (`clients create`); this one then takes no arguments of its own. */
  subcommands?: Readonly<Record<string, CommandSpec>>;
  /** Environment variables holding credentials: never printed either. */
  secretEnv?: readonly string[];
  /** The shape of `--json` output, one line per field or record. */
  json?: readonly string[];
  examples?: readonly string[];
  /** Closing lines: defaults from the environment, exit codes. */
  notes?: readonly string[];
}

/** How a command was called wrongly: answered with a one-line message and the usage, exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

export type OptionValues = Readonly<Record<string, string | boolean | undefined>>;

export type Parsed =
  | { kind: "help"; spec: CommandSpec }
  | { kind: "error"; spec: CommandSpec; message: string }
  | {
      kind: "run";
      spec: CommandSpec;
      /** Subcommand names from the top, e.g. `["create"]`. */
      path: string[];
      values: OptionValues;
      args: string[];
    };

const HELP: OptionSpec = { type: "boolean", short: "h", description: "print this help" };

function optionsOf(spec: CommandSpec): Record<string, OptionSpec> {
  return { ...spec.options, help: HELP };
}

/** Reads `argv` against `spec`, descending into subcommands; never throws. */
export function parseCommand(
  spec: CommandSpec,
  argv: readonly string[],
  path: string[] = [],
): Parsed {
  const [first, ...rest] = argv;
  if (spec.subcommands && first !== undefined && Object.hasOwn(spec.subcommands, first))
    return parseCommand(spec.subcommands[first]!, rest, [...path, first]);
  let values: OptionValues;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: Object.fromEntries(
        Object.entries(optionsOf(spec)).map(([name, o]) => [
          name,
          o.short ? { type: o.type, short: o.short } : { type: o.type },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    }));
  } catch (err) {
    // parseArgs names the option, never its value; its hint after the first sentence is noise.
    return { kind: "error", spec, message: (err as Error).message.split(". ")[0]! };
  }
  if (values.help || (spec.subcommands && first === "help")) return { kind: "help", spec };
  const error = (message: string): Parsed => ({ kind: "error", spec, message });
  if (spec.subcommands)
    return error(first === undefined ? "a command is required" : `unknown command '${first}'`);
  const expected = spec.args ?? [];
  if (positionals.length < expected.length) return error(`missing ${expected[positionals.length]}`);
  if (positionals.length > expected.length)
    return error(`unexpected argument '${positionals[expected.length]}'`);
  return { kind: "run", spec, path, values, args: positionals };
}

function table(rows: ReadonlyArray<[string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`);
}

function synopsis(spec: CommandSpec): string {
  if (spec.subcommands) return `${spec.name} <command> [options]`;
  return [spec.name, ...(spec.args ?? []), "[options]"].join(" ");
}

function section(title: string, lines: readonly string[] | undefined): string[] {
  return lines?.length ? ["", title, ...lines] : [];
}

/** The usage text: synopsis, summary, options, subcommands, JSON output, examples, notes. */
export function usage(spec: CommandSpec): string {
  const options = Object.entries(optionsOf(spec)).map(([name, o]): [string, string] => [
    `${o.short ? `-${o.short}, ` : ""}--${name}${o.value ? ` ${o.value}` : ""}`,
    o.description,
  ]);
  const commands = Object.entries(spec.subcommands ?? {}).map(([name, sub]): [string, string] => [
    name,
    sub.summary,
  ]);
  return [
    `Usage: ${synopsis(spec)}`,
    "",
    spec.summary,
    ...section("Commands:", commands.length ? table(commands) : undefined),
    ...(commands.length
      ? ["", `Run \`${spec.name} <command> --help\` for a command's options.`]
      : []),
    ...section("Options:", table(options)),
    ...section(
      "With --json, stdout is one JSON document:",
      spec.json?.map((l) => `  ${l}`),
    ),
    ...section(
      "Examples:",
      spec.examples?.map((l) => `  ${l}`),
    ),
    ...section("", spec.notes).slice(1),
  ].join("\n");
}
