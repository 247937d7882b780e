/**
 * docs/webhook-subscribers.md, "On your machine in five minutes", run as a reader runs it: a
 * stack started as `npm start` with the setting the guide's start block gives (plus this test's
 * isolation: its own databases, NATS namespace and ports), the guide's blocks in one shell session
 * (`local` blocks), the guide's Node receiver started as its block says, `trigger` from the
 * checkout. The retry is the real one, a minute after the first attempt.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchJson, waitFor } from "@svc/testing";
import { startPrivateStack, type PrivateStack } from "../support/private-stack.ts";
import { blockLabel, fencedBlocks, tagValue, type FencedBlock } from "./support/markdown.ts";
import { FIXED_KEYS, sameShape } from "./support/same-shape.ts";
import { ShellSession } from "./support/shell-session.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const GUIDE = join(ROOT, "docs/webhook-subscribers.md");
const blocks = fencedBlocks(GUIDE);
const label = (b: FencedBlock) => blockLabel(b, ROOT);
const ran = new Set<FencedBlock>();
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

function blockWith(name: string): FencedBlock {
  const found = blocks.filter((b) => tagValue(b, "name") === name);
  if (found.length !== 1) throw new Error(`${GUIDE}: ${found.length} blocks named ${name}`);
  return found[0]!;
}

/** The block right after `block` (its shown output), if it is `json response` or `text`. */
function shownAfter(block: FencedBlock): FencedBlock | undefined {
  const next = blocks[blocks.indexOf(block) + 1];
  return next && (next.lang === "text" || next.tags.includes("response")) ? next : undefined;
}

let stack: PrivateStack;
let workDir: string;
let port: number;
let session: ShellSession;
let base: Record<string, string>;

/** Runs a `tested local` block in the reader's session (from the checkout for `npm run`). */
async function runBlock(name: string): Promise<string> {
  const block = blockWith(name);
  expect(block.tags, label(block)).toEqual(expect.arrayContaining(["tested", "local"]));
  ran.add(block);
  const inCheckout = block.code.includes("npm run");
  const shell = inCheckout ? new ShellSession(ROOT, base, session.vars) : session;
  const result = await shell.run(block.code, 120_000);
  expect(result.exitCode, `${label(block)}:\n${result.stderr}`).toBe(0);
  Object.assign(session.vars, result.set);
  return result.stdout;
}

/** The guide's receiver block, run as in a terminal (its own process group; Ctrl+C stops it). */
class Terminal {
  lines: string[] = [];
  #child: ChildProcess | undefined;

  async start(code: string): Promise<void> {
    this.lines = [];
    const child = spawn("bash", ["-euo", "pipefail", "-c", code], {
      cwd: workDir,
      detached: true,
      env: { ...base, ...session.vars },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.#child = child;
    let buffer = "";
    const onData = (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      this.lines.push(...lines);
    };
    child.stdout!.setEncoding("utf8").on("data", onData);
    child.stderr!.setEncoding("utf8").on("data", onData);
    await this.expectLine(`listening on port ${port}`, 15_000);
  }

  async expectLine(line: string, timeoutMs = 30_000): Promise<void> {
    await waitFor(
      `the receiver to print "${line}"`,
      () => this.lines.includes(line),
      timeoutMs,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; it printed:\n${this.lines.join("\n")}`);
    });
  }

  async stop(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    process.kill(-child.pid!, "SIGINT");
    await exited;
  }
}
const receiver = new Terminal();

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: free } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return free;
}

beforeAll(async () => {
  // The stack as the guide starts it: its start block's settings, nothing else of the guide's.
  const start = blockWith("local-start");
  ran.add(start);
  const assignments = /^((?:[A-Z_]+=\S+ )+)npm start$/.exec(start.code.trim());
  expect(assignments, `${label(start)}: VAR=value … npm start`).not.toBeNull();
  const settings = Object.fromEntries(
    assignments![1]!
      .trim()
      .split(" ")
      .map((a) => a.split("=") as [string, string]),
  );
  stack = await startPrivateStack({ env: settings, startTimeoutMs: 300_000 });
  // The reader's checkout: the demo client npm start kept, the guide's receiver saved as a file.
  workDir = await mkdtemp(join(tmpdir(), "docs-local-quick-start-"));
  await mkdir(join(workDir, ".local"));
  await writeFile(
    join(workDir, ".local/demo-client.json"),
    JSON.stringify({
      client_id: stack.demoClient.clientId,
      client_secret: stack.demoClient.clientSecret,
    }),
  );
  const file = blocks.find((b) => tagValue(b, "file") === "receiver.mjs")!;
  await writeFile(join(workDir, "receiver.mjs"), `${file.code}\n`);
  port = await freePort();
  base = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: workDir };
  session = new ShellSession(workDir, base, { BASE_URL: stack.baseUrl, PORT: String(port) });
}, 480_000);

afterAll(async () => {
  await receiver.stop();
  await stack?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("docs/webhook-subscribers.md: on your machine in five minutes", () => {
  it("the stack warns at start that it accepts loopback subscriber URLs", () => {
    expect(stack.output()).toContain("WEBHOOK_ALLOW_LOOPBACK is true");
  });

  it("subscribes http://localhost with the demo client; the subscription carries the warning", async () => {
    const block = blockWith("local-subscribe");
    const output = await runBlock("local-subscribe");
    const shown = shownAfter(block)!;
    expect(
      sameShape(JSON.parse(shown.code), JSON.parse(output), {
        fixedKeys: new Set([...FIXED_KEYS, "warning"]),
      }),
      `${label(block)} differs from ${label(shown)}:\n${output}`,
    ).toEqual([]);
    expect(JSON.parse(output).data.url).toBe(`http://localhost:${port}/`);
  });

  it("the receiver answers 500 to the triggered application.created, then verifies and handles the retry a minute later", async () => {
    const start = blockWith("local-receiver");
    ran.add(start);
    await receiver.start(start.code);
    const block = blockWith("local-trigger");
    const printed = (await runBlock("local-trigger")).trim();
    const shape = new RegExp(
      `^${shownAfter(block)!.code.trim().replace(new RegExp(UUID, "g"), UUID)}$`,
    );
    expect(printed, `${label(block)}: the shape shown`).toMatch(shape);
    const eventUuid = printed.split(/\s+/)[1]!;
    await receiver.expectLine(`answered 500 to application.created ${eventUuid}`);
    // The contract's schedule: the second attempt one minute after the first.
    const handled = receiver.lines.find((l) =>
      l.startsWith(`received application.created ${eventUuid}`),
    );
    if (!handled)
      await waitFor(
        "the retry handled",
        () => receiver.lines.some((l) => l.startsWith(`received application.created ${eventUuid}`)),
        150_000,
      );
    await waitFor(
      "the delivery to succeed",
      async () => (await runBlockQuietly("local-attempts")).includes("succeeded"),
      30_000,
    );
    const attempts = blockWith("local-attempts");
    expect((await runBlock("local-attempts")).trim(), label(attempts)).toBe(
      shownAfter(attempts)!.code.trim(),
    );
  }, 300_000);

  it("with FAIL_FIRST=400 the ping fails for good; the redeliver block brings it back", async () => {
    await receiver.stop();
    const start = blockWith("local-receiver");
    expect(start.code, label(start)).toContain("FAIL_FIRST=500");
    await receiver.start(start.code.replace("FAIL_FIRST=500", "FAIL_FIRST=400"));
    const pinged = (await runBlock("local-ping")).trim();
    expect(pinged).toMatch(
      new RegExp(`^system\\.ping  ${UUID}  system ${UUID}  delivery ${UUID}$`),
    );
    const [, eventUuid, , webhookUuid, , deliveryUuid] = pinged.split(/\s+/);
    await receiver.expectLine(`answered 400 to system.ping ${eventUuid}`);
    await waitFor(
      "the ping's delivery to fail",
      async () =>
        (
          await fetchJson<{ data: { status: string } }>(
            `${stack.baseUrl}/v1/webhooks/${webhookUuid}/deliveries/${deliveryUuid}`,
            { headers: { authorization: `Bearer ${session.vars.TOKEN}` } },
          )
        ).body.data.status === "failed",
      30_000,
    );
    const block = blockWith("local-redeliver");
    expect((await runBlock("local-redeliver")).trim(), label(block)).toBe(
      shownAfter(block)!.code.trim(),
    );
    await waitFor(
      "the redelivery handled",
      () => receiver.lines.some((l) => l.startsWith(`received system.ping ${eventUuid}`)),
      30_000,
    );
  }, 180_000);

  it("ran every block of the quick start on your machine", () => {
    const missed = blocks.filter((b) => b.tags.includes("local") && !ran.has(b)).map(label);
    expect(missed).toEqual([]);
  });
});

/** A block run again only to poll (not counted, its output not checked). */
async function runBlockQuietly(name: string): Promise<string> {
  const result = await session.run(blockWith(name).code, 30_000);
  return result.exitCode === 0 ? result.stdout : "";
}
