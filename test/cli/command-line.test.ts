/**
 * Every command-line tool of the product, run as its package.json script runs it (`node <file>`
 * from the repository root): --help and -h print the usage to stdout and exit 0; an unknown option
 * prints an error and the usage to stderr and exits 2; credentials given on the command line or in
 * the environment never appear in what it prints, also when it fails past the parse.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// Each test starts up to three Node processes; on a loaded machine one takes seconds. Three tests
// at a time keep two cores busy without starving each other.
vi.setConfig({ testTimeout: 60_000, maxConcurrency: 3 });

/** Credentials handed to every run; none may be printed. */
const SECRETS = ["s3cr3t-value", "cl1ent-value", "p4ss-word", "l3gacy-pw"];
const ENV = {
  DATABASE_URL: "postgres://u:p4ss-word@127.0.0.1:1/app",
  LEGACY_DATABASE_URL: "mysql://u:l3gacy-pw@127.0.0.1:1/legacy",
  CLIENT_SECRET: "cl1ent-value",
  WEBHOOK_SECRET: "s3cr3t-value",
  NATS_SERVERS: "nats://127.0.0.1:1",
  // Vite sets BASE_URL to "/" in the test process; listen reads it as the API's URL.
  BASE_URL: "http://127.0.0.1:9",
};

type Run = { code: number | null; stdout: string; stderr: string };

/** Runs `file` with `args`; with `until`, stops it (SIGINT) once stdout or stderr matches. */
async function run(file: string, args: string[], until?: RegExp): Promise<Run> {
  const child = spawn(process.execPath, [file, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...ENV },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const result: Run = { code: null, stdout: "", stderr: "" };
  let stopped = false;
  const seen = (key: "stdout" | "stderr") => (chunk: string) => {
    result[key] += chunk;
    if (stopped || !until?.test(result.stdout + result.stderr)) return;
    stopped = true;
    child.kill("SIGINT");
  };
  child.stdout.setEncoding("utf8").on("data", seen("stdout"));
  child.stderr.setEncoding("utf8").on("data", seen("stderr"));
  [result.code] = (await once(child, "close")) as [number | null];
  return result;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}

function expectNoSecret(result: Run): void {
  for (const secret of SECRETS) expect(result.stdout + result.stderr).not.toContain(secret);
}

const AUTH = "services/auth/src/cli";
/** [command as documented, file, subcommand path]: every CLI and each of its subcommands. */
const COMMANDS: ReadonlyArray<[string, string, string[]]> = [
  ["npm run clients --", `${AUTH}/clients.ts`, []],
  ...["create", "list", "rotate", "revoke", "expire"].map((sub): [string, string, string[]] => [
    `npm run clients -- ${sub}`,
    `${AUTH}/clients.ts`,
    [sub],
  ]),
  ["npm run keys --", `${AUTH}/keys.ts`, []],
  ["npm run keys -- generate", `${AUTH}/keys.ts`, ["generate"]],
  ["npm run webhooks --", "tools/webhooks.ts", []],
  ["npm run webhooks -- listen", "tools/webhooks.ts", ["listen"]],
  ["npm run webhooks -- trigger", "tools/webhooks.ts", ["trigger"]],
  ["npm run legacy:check --", "shared/legacy/src/cli/legacy-check.ts", []],
  ["npm run sandbox:seed --", "shared/sandbox/src/cli/seed.ts", []],
  ["npm run candidates:merge --", "services/identity/src/cli/merge-candidates.ts", []],
];

describe.concurrent.each(COMMANDS)("%s", (name, file, path) => {
  it("prints its usage to stdout and exits 0 on --help and on -h", async () => {
    const [long, short] = await Promise.all([
      run(file, [...path, "--help"]),
      run(file, [...path, "-h"]),
    ]);
    expect(long).toMatchObject({ code: 0, stderr: "" });
    expect(long.stdout.startsWith(`Usage: ${name} `)).toBe(true);
    expect(long.stdout).toMatch(/^ {2}-h, --help +print this help$/m);
    expect(short).toEqual(long);
    expectNoSecret(long);
  });

  it("answers an unknown option with one error line and the usage on stderr, exit 2", async () => {
    const wrong = await run(file, [...path, "--no-such-option", "--secret", "s3cr3t-value"]);
    expect(wrong).toMatchObject({ code: 2, stdout: "" });
    const [first, blank, usage] = wrong.stderr.split("\n");
    expect(first).toBe(`${name}: Unknown option '--no-such-option'`);
    expect(blank).toBe("");
    expect(usage?.startsWith(`Usage: ${name} `)).toBe(true);
    expectNoSecret(wrong);
  });
});

describe("credentials stay out of what a failing command prints", () => {
  it("clients list and candidates:merge: DATABASE_URL's password, from a refused connection", async () => {
    const uuid = "0b6f6a52-1c1e-4b57-9d2c-7f3f5c9f8a10";
    const runs = await Promise.all([
      run(`${AUTH}/clients.ts`, ["list"]),
      run("services/identity/src/cli/merge-candidates.ts", [uuid, uuid.replace("0b", "1b")]),
    ]);
    for (const failed of runs) {
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/database is temporarily unavailable/);
      expectNoSecret(failed);
    }
  });

  it("legacy:check and sandbox:seed: a database URL's password, from --url and the environment", async () => {
    const url = "mysql://u:p4ss-word@127.0.0.1:1/legacy";
    const runs = await Promise.all([
      run("shared/legacy/src/cli/legacy-check.ts", []),
      run("shared/legacy/src/cli/legacy-check.ts", ["--url", url, "--json"]),
      run("shared/sandbox/src/cli/seed.ts", ["--url", url.replace("/legacy", ""), "--json"]),
    ]);
    expect(runs.map((r) => r.code)).toEqual([3, 3, 1]);
    expect(runs[0]!.stderr).toContain("cannot connect to mysql://u@127.0.0.1:1/legacy");
    runs.forEach(expectNoSecret);
  });

  it("webhooks listen: --secret and --client-secret", async () => {
    const closed = await closedPort();
    const listening = await run(
      "tools/webhooks.ts",
      [
        "listen",
        "--forward-to=http://127.0.0.1:9/hooks",
        `--base-url=http://127.0.0.1:${closed}`,
        "--client-id=cl_x",
        "--client-secret=cl1ent-value",
        "--secret",
        "s3cr3t-value",
      ],
      /unreachable/,
    );
    expect(listening).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`! http://127.0.0.1:${closed} unreachable (ECONNREFUSED)`),
    });
    expectNoSecret(listening);
  });

  it("webhooks trigger: --client-secret and the legacy database URL's password; a bad or unoffered event type", async () => {
    const closed = await closedPort();
    const [unreachable, unknown, unoffered] = await Promise.all([
      run("tools/webhooks.ts", [
        "trigger",
        "vacancy.updated",
        `--base-url=http://127.0.0.1:${closed}`,
        "--client-id=cl_x",
        "--client-secret=cl1ent-value",
        "--legacy-database-url=mysql://u:p4ss-word@127.0.0.1:1/legacy_sandbox",
      ]),
      run("tools/webhooks.ts", ["trigger", "vacancy.exploded", "--client-secret=cl1ent-value"]),
      run("tools/webhooks.ts", ["trigger", "practice.deleted", "--client-secret=cl1ent-value"]),
    ]);
    expect(unreachable).toMatchObject({ code: 1, stdout: "" });
    expect(unreachable.stderr).toContain(`cannot reach http://127.0.0.1:${closed}`);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/'vacancy.exploded' is not an event type/);
    expect(unoffered).toMatchObject({ code: 1, stdout: "" });
    expect(unoffered.stderr).toMatch(/practice.deleted is not offered: .*full sweep/);
    [unreachable, unknown, unoffered].forEach(expectNoSecret);
  });
});
