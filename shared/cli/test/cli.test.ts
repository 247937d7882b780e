import { describe, expect, it } from "vitest";
import {
  parseCommand,
  redactor,
  runCli,
  usage,
  UsageError,
  type CommandSpec,
  type Invocation,
} from "../src/index.ts";

const SPEC: CommandSpec = {
  name: "tool",
  summary: "Does things.",
  secretEnv: ["DATABASE_URL"],
  subcommands: {
    send: {
      name: "tool send",
      summary: "Sends one thing.",
      args: ["<id>"],
      options: {
        to: { type: "string", value: "<url>", description: "where to" },
        token: { type: "string", short: "t", secret: true, description: "credential" },
        json: { type: "boolean", description: "JSON out" },
      },
      json: ['{"sent": "<id>"}'],
      examples: ["tool send 42 --to http://example.test"],
      notes: ["Exit codes: 0 sent."],
    },
    list: { name: "tool list", summary: "Lists things." },
  },
};

async function run(
  argv: string[],
  env: Record<string, string> = {},
  main: (call: Invocation) => Promise<number> = okMain,
) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(SPEC, main, {
    argv,
    env,
    print: { out: (l) => out.push(l), err: (l) => err.push(l) },
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

async function okMain(): Promise<number> {
  return 0;
}

describe("parseCommand", () => {
  it("descends into a subcommand and returns its options and arguments", () => {
    const parsed = parseCommand(SPEC, [
      "send",
      "42",
      "--to",
      "http://x.test",
      "-t",
      "tok",
      "--json",
    ]);
    expect(parsed).toMatchObject({
      kind: "run",
      path: ["send"],
      args: ["42"],
      values: { to: "http://x.test", token: "tok", json: true },
    });
  });

  it.each([
    [["send", "42", "--nope"], "Unknown option '--nope'"],
    [["send"], "missing <id>"],
    [["send", "1", "2"], "unexpected argument '2'"],
    [["send", "1", "--to"], "Option '--to <value>' argument missing"],
    [[], "a command is required"],
    [["frob"], "unknown command 'frob'"],
    [["--json"], "Unknown option '--json'"],
  ])("answers %j with the error %j", (argv, message) => {
    expect(parseCommand(SPEC, argv)).toMatchObject({ kind: "error", message });
  });

  it("answers --help, -h and `help` with the usage of the command they follow", () => {
    expect(parseCommand(SPEC, ["send", "-h"])).toMatchObject({
      kind: "help",
      spec: { name: "tool send" },
    });
    expect(parseCommand(SPEC, ["--help"])).toMatchObject({ kind: "help", spec: { name: "tool" } });
    expect(parseCommand(SPEC, ["help"])).toMatchObject({ kind: "help", spec: { name: "tool" } });
    expect(parseCommand(SPEC, ["list", "extra", "--help"])).toMatchObject({ kind: "help" });
  });
});

describe("usage", () => {
  it("shows the synopsis, options with their values, JSON shape, examples and notes", () => {
    const text = usage(SPEC.subcommands!.send!);
    expect(text.split("\n")[0]).toBe("Usage: tool send <id> [options]");
    expect(text).toMatch(/^ {2}--to <url> +where to$/m);
    expect(text).toMatch(/^ {2}-t, --token +credential$/m);
    expect(text).toMatch(/^ {2}-h, --help +print this help$/m);
    expect(text).toContain('With --json, stdout is one JSON document:\n  {"sent": "<id>"}');
    expect(text).toContain("Examples:\n  tool send 42 --to http://example.test");
    expect(text.endsWith("\n\nExit codes: 0 sent.")).toBe(true);
  });

  it("lists the subcommands of a command that has them", () => {
    const text = usage(SPEC);
    expect(text.split("\n")[0]).toBe("Usage: tool <command> [options]");
    expect(text).toMatch(/^ {2}send +Sends one thing\.$/m);
    expect(text).toMatch(/^ {2}list +Lists things\.$/m);
  });
});

describe("runCli", () => {
  it("prints help to stdout and exits 0 without running the command", async () => {
    let ran = false;
    const help = await run(["send", "--help"], {}, async () => ((ran = true), 0));
    expect(help).toMatchObject({ code: 0, err: "" });
    expect(help.out).toBe(usage(SPEC.subcommands!.send!));
    expect(ran).toBe(false);
  });

  it("prints a one-line error then the usage to stderr and exits 2", async () => {
    const wrong = await run(["send", "1", "--nope"]);
    expect(wrong).toMatchObject({ code: 2, out: "" });
    const [first, blank, ...rest] = wrong.err.split("\n");
    expect(first).toBe("tool send: Unknown option '--nope'");
    expect(blank).toBe("");
    expect(rest.join("\n")).toBe(usage(SPEC.subcommands!.send!));
  });

  it("answers a UsageError from the command with exit 2 and its usage", async () => {
    const bad = await run(["send", "x"], {}, async () => {
      throw new UsageError("<id> must be a number");
    });
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^tool send: <id> must be a number\n\nUsage: tool send/);
  });

  it("hands the command its values and exits with its code", async () => {
    const seen = await run(["send", "7", "--json"], {}, async (call) => {
      call.io.out(
        JSON.stringify({ sent: call.args[0], json: call.flag("json"), to: call.string("to") }),
      );
      return 5;
    });
    expect(seen).toEqual({ code: 5, out: '{"sent":"7","json":true}', err: "" });
  });

  it("masks secret options, secret environment variables and URL passwords in all it prints", async () => {
    const env = { DATABASE_URL: "postgres://app:db-p%40ss@db.test:5432/app" };
    const leaky = async () => {
      throw new Error(
        `failed with tok3n-value at ${env.DATABASE_URL} via http://u:hunter2@h.test/`,
      );
    };
    for (const argv of [
      ["send", "1", "--token", "tok3n-value"],
      ["send", "1", "--token=tok3n-value"],
      ["send", "1", "-t", "tok3n-value"],
    ]) {
      const { code, err } = await run(argv, env, leaky);
      expect(code).toBe(1);
      expect(err).toBe(
        "tool: failed with *** at postgres://app:***@db.test:5432/app via http://u:***@h.test/",
      );
    }
    const decoded = redactor(SPEC, [], env)("password db-p@ss");
    expect(decoded).toBe("password ***");
  });

  it("masks a secret value echoed in a usage error", async () => {
    const { err } = await run(["send", "1", "--token", "tok3n-value", "tok3n-value"]);
    expect(err.split("\n")[0]).toBe("tool send: unexpected argument '***'");
  });
});
