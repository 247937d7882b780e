/**
 * docs/webhook-subscribers.md, run the way a subscriber would: every `tested` block against a
 * private stack. The guide's Node and Python receivers run as shown, each behind a small
 * TLS-terminating proxy (what a subscriber's HTTPS front does), and verify real deliveries: the
 * test ping, an application's event, deliveries during a secret rotation, a redelivery after the
 * delivery went dead, a recovery after an outage. The test then sends each receiver a tampered body, a wrong signature, stale
 * timestamps and duplicates itself. The openssl block runs on captured real deliveries. Shown
 * responses are compared with the real output; every failure names its block.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCa, fetchJson, waitFor, type TestCa } from "@svc/testing";
import { runClientsCli } from "../e2e/flow-support.ts";
import { runCommand } from "../support/run-command.ts";
import { stackData, startPrivateStack, type PrivateStack } from "../support/private-stack.ts";
import { blockLabel, fencedBlocks, tagValue, type FencedBlock } from "./support/markdown.ts";
import { TRIMMED } from "./support/same-shape.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const GUIDE = join(ROOT, "docs/webhook-subscribers.md");
const HOOK_PATH = "/svc-webhooks";

const blocks = fencedBlocks(GUIDE);
const label = (block: FencedBlock) => blockLabel(block, ROOT);
const ran = new Set<FencedBlock>();

/** The block carrying `tag=value` (e.g. `name=ping`, `file=receiver.py`). */
function blockWith(tag: string, value: string): FencedBlock {
  const found = blocks.filter((b) => tagValue(b, tag) === value);
  if (found.length !== 1)
    throw new Error(`docs/webhook-subscribers.md: ${found.length} blocks with ${tag}=${value}`);
  return found[0]!;
}

// ---------------------------------------------------------------------------------------------
// Comparing shown responses with real ones

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Strings that differ per run: ids, instants, secrets, tokens, URLs. */
const VARYING = [
  UUID,
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
  /^whsec_/,
  /^eyJ/,
  /^https?:\/\//,
];
/** Numbers that differ per run. */
const VARYING_NUMBERS = new Set(["duration_ms"]);
/** Opaque strings that differ per run. */
const VARYING_STRINGS = new Set(["next_cursor"]);

/**
 * Where `actual` differs from `shown`: keys, JSON types, and every value that does not vary. A
 * shortened response (same-shape.ts) shows a key `"…"` for fields left out, and a last array
 * element `"…"` for more elements like those shown; everything it does show is compared.
 */
function shapeProblems(shown: unknown, actual: unknown, at = "$", key = ""): string[] {
  const kind = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
  if (kind(shown) !== kind(actual)) return [`${at}: ${kind(actual)}, shown ${kind(shown)}`];
  if (Array.isArray(shown)) {
    const items = actual as unknown[];
    const trimmed = shown.at(-1) === TRIMMED;
    const listed = trimmed ? shown.slice(0, -1) : shown;
    if (trimmed ? items.length < listed.length : items.length !== listed.length)
      return [`${at}: ${items.length} items, shown ${listed.length}`];
    return listed.flatMap((s, i) => shapeProblems(s, items[i], `${at}[${i}]`, key));
  }
  if (kind(shown) === "object") {
    const s = shown as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const listed = Object.keys(s).filter((k) => k !== TRIMMED);
    const problems = [
      ...Object.keys(a)
        .filter((k) => !(k in s) && !(TRIMMED in s))
        .map((k) => `${at}.${k}: not shown`),
      ...listed.filter((k) => !(k in a)).map((k) => `${at}.${k}: shown, not in the output`),
    ];
    for (const k of listed)
      if (k in a) problems.push(...shapeProblems(s[k], a[k], `${at}.${k}`, k));
    return problems;
  }
  if (typeof shown === "string") {
    const pattern = VARYING.find((p) => p.test(shown));
    if (pattern) return pattern.test(actual as string) ? [] : [`${at}: ${JSON.stringify(actual)}`];
  }
  if (typeof shown === "number" && VARYING_NUMBERS.has(key)) return [];
  if (typeof shown === "string" && typeof actual === "string" && VARYING_STRINGS.has(key))
    return [];
  return shown === actual
    ? []
    : [`${at}: ${JSON.stringify(actual)}, shown ${JSON.stringify(shown)}`];
}

/**
 * The test's receivers sit on loopback (the guide's on a public host), so its subscriptions carry
 * the `warning` only loopback URLs have; the guide's responses do not show it.
 */
function withoutLoopbackWarning(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLoopbackWarning);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k, v]) => !(k === "warning" && String(v).startsWith("loopback_url:")))
      .map(([k, v]) => [k, withoutLoopbackWarning(v)]),
  );
}

/** The ```json response block right after `block`, if any. */
function shownResponse(block: FencedBlock): FencedBlock | undefined {
  const next = blocks[blocks.indexOf(block) + 1];
  return next?.lang === "json" && next.tags.includes("response") ? next : undefined;
}

function expectShown(block: FencedBlock, shown: FencedBlock, output: string): void {
  let actual: unknown;
  try {
    actual = JSON.parse(output);
  } catch {
    throw new Error(`${label(block)}: the output is not JSON:\n${output}`);
  }
  const problems = shapeProblems(JSON.parse(shown.code), withoutLoopbackWarning(actual));
  expect
    .soft(
      problems,
      `${label(block)}: the output differs from the response shown at ${label(shown)}; it was:\n${JSON.stringify(actual, null, 2)}`,
    )
    .toEqual([]);
}

/** The request shown in the guide: header name (lower case) → value, and the body line. */
function shownRequest(): { headers: Record<string, string>; body: string } {
  const [, ...rest] = blockWith("example", "request").code.split("\n");
  const blank = rest.indexOf("");
  const headers = Object.fromEntries(
    rest.slice(0, blank).map((line) => {
      const [name, ...value] = line.split(": ");
      return [name!.toLowerCase(), value.join(": ")];
    }),
  );
  return { headers, body: rest.slice(blank + 1).join("\n") };
}

// ---------------------------------------------------------------------------------------------
// Running the guide's blocks

let workDir: string;
/** What the guide tells the reader to set, as the reader would have it by each step. */
const readerEnv: Record<string, string> = {};

/** Runs a `sh tested` block with `bash -euo pipefail`; returns its output (checked against the shown response, if any). */
async function runShell(name: string, extraEnv: Record<string, string> = {}): Promise<string> {
  const block = blockWith("name", name);
  ran.add(block);
  const result = await runCommand("bash", ["-euo", "pipefail", "-c", block.code], {
    cwd: workDir,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: workDir,
      ...readerEnv,
      ...extraEnv,
    },
  });
  expect(result.code, `${label(block)} exited ${result.code}:\n${result.stderr}`).toBe(0);
  const shown = shownResponse(block);
  if (shown) expectShown(block, shown, result.stdout);
  return result.stdout;
}

// ---------------------------------------------------------------------------------------------
// The guide's receivers, and the HTTPS front the test puts before each

/** One receiver block running as the guide says: `WEBHOOK_SECRET=… PORT=… <runtime> <file>`. */
class Receiver {
  readonly block: FencedBlock;
  port = 0;
  #child: ChildProcess | undefined;
  #lines: string[] = [];

  constructor(file: string) {
    this.block = blockWith("file", file);
    ran.add(this.block);
  }

  get name(): string {
    return label(this.block);
  }

  async start(secret: string): Promise<void> {
    const file = tagValue(this.block, "file")!;
    const runtime = this.block.lang === "python" ? "python3" : process.execPath;
    const child = spawn(runtime, [file], {
      cwd: workDir,
      env: { PATH: process.env.PATH ?? "", WEBHOOK_SECRET: secret, PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.#child = child;
    let buffer = "";
    const onData = (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      this.#lines.push(...lines);
    };
    child.stdout!.setEncoding("utf8").on("data", onData);
    child.stderr!.setEncoding("utf8").on("data", onData);
    const listening = () =>
      this.#lines.map((l) => /^listening on port (\d+)$/.exec(l)).find(Boolean);
    await waitFor(`${this.name} to listen`, () => listening() !== undefined, 10_000).catch(
      (err: Error) => {
        throw new Error(`${err.message}; its output:\n${this.#lines.join("\n")}`);
      },
    );
    this.port = Number(listening()![1]);
    this.#lines = this.#lines.filter((l) => !l.startsWith("listening on port"));
  }

  async stop(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await once(child, "exit");
  }

  /** How often it handled `eventId` (the guide's receivers print `received <type> <id> <self>`). */
  handled(eventId: string): number {
    return this.#lines.filter((l) => l.split(" ")[0] === "received" && l.split(" ")[2] === eventId)
      .length;
  }

  output(): string {
    return this.#lines.join("\n");
  }

  /** POSTs straight to the receiver's plain-HTTP port (what only a forger or a replayer would do). */
  async post(
    headers: Record<string, string>,
    body: Buffer,
  ): Promise<{ status: number; text: string }> {
    const res = await fetch(`http://127.0.0.1:${this.port}${HOOK_PATH}`, {
      method: "POST",
      headers,
      body,
    });
    return { status: res.status, text: await res.text() };
  }
}

interface Capture {
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** The receiver's status code, or 502 when the receiver could not be reached. */
  status: number;
}

interface TlsFront {
  url: string;
  captures: Capture[];
  close(): Promise<void>;
}

/** An HTTPS endpoint (test CA) that passes each request unchanged to the receiver's port. */
async function startTlsFront(ca: TestCa, receiver: Receiver): Promise<TlsFront> {
  const captures: Capture[] = [];
  const server = createHttpsServer({ key: ca.serverKey, cert: ca.serverCert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      const capture: Capture = { headers: req.headers, rawBody, status: 502 };
      captures.push(capture);
      const upstream = httpRequest(
        {
          host: "127.0.0.1",
          port: receiver.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
          agent: false,
        },
        (answer) => {
          capture.status = answer.statusCode ?? 502;
          res.writeHead(capture.status, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on("error", () => res.writeHead(502).end("receiver unreachable"));
      upstream.end(rawBody);
    });
  });
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}${HOOK_PATH}`,
    captures,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// The stack and the API, as the test itself uses them

let ca: TestCa;
let stack: PrivateStack;
let testToken: string;
const node = new Receiver("receiver.mjs");
const python = new Receiver("receiver.py");
let nodeFront: TlsFront;
let pythonFront: TlsFront;
/** The guide's subscription (Node receiver), and the test's own one for the Python receiver. */
const subs = {
  node: { uuid: "", secret: "" },
  python: { uuid: "", secret: "", token: "" },
};

async function tokenFor(clientId: string, secret: string, scope?: string): Promise<string> {
  const res = await fetch(`${stack.baseUrl}/oauth/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ grant_type: "client_credentials", ...(scope && { scope }) }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

const api = (method: string, path: string, body?: unknown, token = testToken) =>
  stackData(stack, token, method, path, body);

type DeliveryRecord = {
  delivery_uuid: string;
  event_uuid: string;
  event_type: string;
  status: string;
};

async function deliveries(uuid: string, token = testToken): Promise<DeliveryRecord[]> {
  return api("GET", `/v1/webhooks/${uuid}/deliveries?per_page=100`, undefined, token);
}

/** Waits until the subscription has no pending delivery. */
async function settled(uuid: string, token = testToken): Promise<DeliveryRecord[]> {
  let list: DeliveryRecord[] = [];
  await waitFor(
    `the deliveries of ${uuid} to settle`,
    async () => (list = await deliveries(uuid, token)).every((d) => d.status !== "pending"),
    20_000,
  );
  return list;
}

async function awaitHandled(receiver: Receiver, eventId: string): Promise<void> {
  await waitFor(
    `${receiver.name} to handle ${eventId}`,
    () => receiver.handled(eventId) > 0,
    20_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; its output:\n${receiver.output()}`);
  });
}

function sign(secret: string, timestamp: number, body: Buffer): string {
  return `v1=${createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex")}`;
}

function eventOf(body: Buffer): {
  event_uuid: string;
  event_type: string;
  entity: { type: string; id: string };
} {
  return JSON.parse(body.toString("utf8"));
}

/** The last capture at `front` of `type`. */
function captured(front: TlsFront, type: string): Capture {
  const found = front.captures.filter((c) => c.headers["x-svc-event-type"] === type).at(-1);
  expect(found, `a captured ${type} delivery`).toBeDefined();
  return found!;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "docs-webhooks-"));
  for (const block of blocks.filter((b) => b.tags.includes("tested") && tagValue(b, "file")))
    await writeFile(join(workDir, tagValue(block, "file")!), `${block.code}\n`);
  ca = createTestCa();
  stack = await startPrivateStack({
    env: {
      // The dispatcher may deliver to the loopback fronts, whose certificate the test CA signed.
      WEBHOOK_ALLOW_LOOPBACK: "true",
      WEBHOOK_EXTRA_CA_FILE: ca.caFile,
      // Six attempts in about a second instead of 7.5 hours, so a delivery goes dead in the test.
      WEBHOOK_RETRY_SCHEDULE_MS: "100,100,100,100,100",
      RELAY_POLL_MS: "100",
    },
  });
  nodeFront = await startTlsFront(ca, node);
  pythonFront = await startTlsFront(ca, python);
  testToken = await tokenFor(stack.demoClient.clientId, stack.demoClient.clientSecret);
  readerEnv.BASE_URL = stack.baseUrl;
  readerEnv.CLIENT_ID = stack.demoClient.clientId;
  readerEnv.CLIENT_SECRET = stack.demoClient.clientSecret;
  readerEnv.RECEIVER_URL = nodeFront.url;
}, 180_000);

afterAll(async () => {
  await node.stop();
  await python.stop();
  await nodeFront?.close();
  await pythonFront?.close();
  await stack?.stop();
  ca?.dispose();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** A new application through the API: it emits application.created. */
async function createApplication(): Promise<{ application_uuid: string }> {
  const vacancies = (await api("GET", "/v1/vacancies?per_page=100")) as Array<{
    uuid: string;
    practice: { legacy_reference: string | null };
  }>;
  const vacancy = vacancies.find((v) => v.practice.legacy_reference !== null);
  expect(vacancy, "a vacancy naming its practice").toBeDefined();
  return api("POST", "/v1/applications", {
    vacancy_uuid: vacancy!.uuid,
    candidate: { email: `docs-${randomBytes(4).toString("hex")}@example.be` },
    consent: true,
    entrypoint: "Vacature-pagina",
  });
}

describe("docs/webhook-subscribers.md", () => {
  it("lists exactly the event catalogue of the OpenAPI document", async () => {
    const document = JSON.parse(
      await readFile(join(ROOT, "shared/openapi/openapi.json"), "utf8"),
    ) as { webhooks: Record<string, unknown> };
    const text = await readFile(GUIDE, "utf8");
    const rows = [...text.matchAll(/^\| `([a-z_]+\.[a-z]+)` \| `[a-z_]+`/gm)].map((m) => m[1]);
    expect(rows.sort(), "docs/webhook-subscribers.md: the event catalogue table").toEqual(
      Object.keys(document.webhooks).sort(),
    );
  });

  it("subscribes with the guide's token and subscribe blocks; refuses a plain-http URL", async () => {
    const token = JSON.parse(await runShell("token")) as { access_token: string };
    readerEnv.TOKEN = token.access_token;
    const created = JSON.parse(await runShell("subscribe")) as {
      data: { webhook_uuid: string; secret: string; url: string };
    };
    expect(created.data.url, label(blockWith("name", "subscribe"))).toBe(nodeFront.url);
    subs.node = { uuid: created.data.webhook_uuid, secret: created.data.secret };
    readerEnv.WEBHOOK_UUID = subs.node.uuid;
    readerEnv.WEBHOOK_SECRET = subs.node.secret;
    await runShell("subscribe-refused");

    // The Python receiver gets its own client and subscription (a client sees only its own).
    const client = await runClientsCli(
      {
        DATABASE_URL: stack.pgUrl,
        NATS_SERVERS: stack.natsUrl,
        NATS_NAMESPACE: stack.natsNamespace,
        ENVIRONMENT: "sandbox",
      },
      ["create", "--name", "python receiver", "--scopes", "webhooks:read,webhooks:write", "--json"],
    );
    expect(client.code, client.stderr).toBe(0);
    const out = JSON.parse(client.stdout) as { client: { id: string }; client_secret: string };
    subs.python.token = await tokenFor(out.client.id, out.client_secret);
    const sub = await api(
      "POST",
      "/v1/webhooks",
      { url: pythonFront.url, event_types: ["vacancy.updated", "application.created"] },
      subs.python.token,
    );
    subs.python.uuid = sub.webhook_uuid;
    subs.python.secret = sub.secret;
  });

  it("both receivers verify and handle the real test ping; the ping and delivery blocks show it", async () => {
    await node.start(subs.node.secret);
    await python.start(subs.python.secret);
    const ping = JSON.parse(await runShell("ping")) as { data: DeliveryRecord };
    readerEnv.DELIVERY_UUID = ping.data.delivery_uuid;
    const pythonPing = (await api(
      "POST",
      `/v1/webhooks/${subs.python.uuid}/test`,
      undefined,
      subs.python.token,
    )) as DeliveryRecord;
    await awaitHandled(node, ping.data.event_uuid);
    await awaitHandled(python, pythonPing.event_uuid);
    await settled(subs.node.uuid);
    await settled(subs.python.uuid, subs.python.token);
    await runShell("deliveries");
    await runShell("delivery");
  });

  it("both receivers verify and handle a real application.created", async () => {
    const application = await createApplication();
    for (const [receiver, front] of [
      [node, nodeFront],
      [python, pythonFront],
    ] as const) {
      await waitFor(
        `${receiver.name} to answer application.created with 200`,
        () =>
          front.captures.some(
            (c) => c.headers["x-svc-event-type"] === "application.created" && c.status === 200,
          ),
        20_000,
      );
      const event = eventOf(captured(front, "application.created").rawBody);
      expect(event.entity.id, receiver.name).toBe(application.application_uuid);
      expect(receiver.handled(event.event_uuid), receiver.name).toBe(1);
    }
    const records = await settled(subs.node.uuid);
    expect(records.map((d) => [d.event_type, d.status])).toEqual([
      ["application.created", "succeeded"],
      ["system.ping", "succeeded"],
    ]);
  });

  it("lists the delivered application.created with the events block, payload as delivered", async () => {
    const deliveredId = eventOf(captured(nodeFront, "application.created").rawBody).event_uuid;
    // The feed holds an event back while an older transaction of the cluster is open (another
    // test's, say). Wait until it is readable under another filter than the block's, so the
    // block's total is counted with the event readable.
    await waitFor(
      "the feed to show the delivered application.created",
      async () =>
        (
          (await api("GET", "/v1/events?type=application.created,candidate.created")) as Array<{
            event_uuid: string;
          }>
        ).some((e) => e.event_uuid === deliveredId),
      20_000,
    );
    const listed = JSON.parse(await runShell("events")) as {
      data: Array<{ event_uuid: string; payload: unknown }>;
    };
    const delivered = captured(nodeFront, "application.created").rawBody;
    expect(listed.data[0]!.event_uuid, label(blockWith("name", "events"))).toBe(
      eventOf(delivered).event_uuid,
    );
    expect(JSON.stringify(listed.data[0]!.payload)).toBe(delivered.toString("utf8"));
  });

  it("the listen block forwards a new event to the Node receiver, which verifies it; Ctrl+C stops it", async () => {
    const block = blockWith("name", "listen");
    ran.add(block);
    // As in a terminal: from the checkout, in its own process group, which Ctrl+C signals.
    const child = spawn("bash", ["-euo", "pipefail", "-c", block.code], {
      cwd: ROOT,
      detached: true,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: workDir,
        ...readerEnv,
        PORT: String(node.port),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (c: string) => void (out += c));
    child.stderr!.setEncoding("utf8").on("data", (c: string) => void (out += c));
    const exited = once(child, "exit");
    try {
      await waitFor(`${label(block)} to start`, () => out.includes("Ctrl+C stops."), 60_000);
      const application = await createApplication();
      const ofApplication = () =>
        nodeFront.captures
          .map((c) => eventOf(c.rawBody))
          .find((e) => e.entity.id === application.application_uuid);
      await waitFor("the new application.created delivered", () => ofApplication() !== undefined);
      const event = ofApplication()!;
      // 200 from the guide's receiver: the signature made with WEBHOOK_SECRET verified.
      await waitFor(
        `${label(block)} to forward ${event.event_uuid}: ${out}`,
        () => out.includes(`application.created  ${event.event_uuid}  -> 200`),
        20_000,
      );
      // The Python receiver's real delivery too, so the checks below see both settled.
      await awaitHandled(python, event.event_uuid);
    } finally {
      process.kill(-child.pid!, "SIGINT");
      await exited;
    }
    expect(out, label(block)).toContain("Stopped.");
  }, 120_000);

  it("shows a payload and a request with the fields and headers real deliveries have", () => {
    const capture = captured(nodeFront, "application.created");
    const payload = blockWith("example", "payload");
    const request = blockWith("example", "request");
    const real = capture.rawBody.toString("utf8");
    expect(
      shapeProblems(JSON.parse(payload.code), JSON.parse(real)),
      `${label(payload)}: differs from a real application.created: ${real}`,
    ).toEqual([]);
    const shown = shownRequest();
    const where = `${label(request)}: a real delivery has ${JSON.stringify(capture.headers)} ${real}`;
    expect(Object.keys(shown.headers).sort(), where).toEqual(
      Object.keys(capture.headers)
        .filter((h) => h !== "connection")
        .sort(),
    );
    expect(JSON.parse(shown.body), `${label(request)}: the body is the payload shown`).toEqual(
      JSON.parse(payload.code),
    );
    expect(shown.headers["content-length"], where).toBe(String(Buffer.byteLength(shown.body)));
    expect(shown.headers["x-svc-event-id"], where).toBe(JSON.parse(shown.body).event_uuid);
    expect(shown.headers["x-svc-event-type"], where).toBe(JSON.parse(shown.body).event_type);
    expect(shown.headers["user-agent"], where).toBe(capture.headers["user-agent"]);
  });

  it("the openssl block prints the signature of a captured real delivery, and of the request shown", async () => {
    const openssl = label(blockWith("name", "openssl"));
    const capture = captured(nodeFront, "application.created");
    await writeFile(join(workDir, "body.json"), capture.rawBody);
    const printed = await runShell("openssl", {
      TIMESTAMP: String(capture.headers["x-svc-timestamp"]),
    });
    expect(printed.trim(), openssl).toBe(capture.headers["x-svc-signature"]);

    // The request shown, signed with the secret of the subscription shown.
    const subscribed = JSON.parse(shownResponse(blockWith("name", "subscribe"))!.code) as {
      data: { secret: string };
    };
    const shown = shownRequest();
    await writeFile(join(workDir, "body.json"), shown.body);
    const forShown = await runShell("openssl", {
      TIMESTAMP: shown.headers["x-svc-timestamp"]!,
      WEBHOOK_SECRET: subscribed.data.secret,
    });
    expect(forShown.trim(), `${openssl}, for ${label(blockWith("example", "request"))}`).toBe(
      shown.headers["x-svc-signature"],
    );
  });

  for (const which of ["node", "python"] as const) {
    it(`the ${which} receiver refuses tampered, wrongly signed and stale deliveries and answers a duplicate without handling it again`, async () => {
      const receiver = which === "node" ? node : python;
      const front = which === "node" ? nodeFront : pythonFront;
      const secret = subs[which].secret;
      const why = (what: string) => `${receiver.name}: ${what}`;
      const real = captured(front, "application.created");
      const event = eventOf(real.rawBody);
      const headers = Object.fromEntries(
        Object.entries(real.headers).filter(
          ([k]) => k.startsWith("x-svc-") || k === "content-type",
        ),
      ) as Record<string, string>;
      const now = () => Math.floor(Date.now() / 1000);
      const signed = (body: Buffer, timestamp: number, key = secret) => ({
        ...headers,
        "x-svc-timestamp": String(timestamp),
        "x-svc-signature": sign(key, timestamp, body),
      });
      /** The real body with another event id: a new event, so no answer is explained by deduplication. */
      const otherEvent = () =>
        Buffer.from(real.rawBody.toString("utf8").replace(event.event_uuid, randomUUID()));

      // Duplicates: the same request again, and as a retry would send it (new timestamp, new signature).
      const again = await receiver.post(headers, real.rawBody);
      expect(again.status, why("the same delivery again")).toBeGreaterThanOrEqual(200);
      expect(again.status, why("the same delivery again")).toBeLessThan(300);
      const retry = await receiver.post(signed(real.rawBody, now()), real.rawBody);
      expect(retry.status, why("a retry of a handled event")).toBeGreaterThanOrEqual(200);
      expect(retry.status, why("a retry of a handled event")).toBeLessThan(300);
      expect(receiver.handled(event.event_uuid), why("handled once")).toBe(1);

      const refused: Array<[string, Record<string, string>, Buffer]> = [];
      const tampered = Buffer.from(
        real.rawBody.toString("utf8").replace('"event_version":1', '"event_version":2'),
      );
      expect(tampered.equals(real.rawBody)).toBe(false);
      refused.push(["a tampered body", headers, tampered]);
      const forged = otherEvent();
      refused.push([
        "a signature made with another secret",
        signed(forged, now(), `whsec_${randomBytes(32).toString("base64url")}`),
        forged,
      ]);
      const old = otherEvent();
      refused.push(["a timestamp 301 s old", signed(old, now() - 301), old]);
      // Ahead, the whole seconds sent lose to the receiver's clock what passes before it looks
      // (the fraction of this second, the trip): a margin keeps it outside the tolerance.
      const future = otherEvent();
      refused.push(["a timestamp 310 s ahead", signed(future, now() + 310), future]);
      const unsigned = otherEvent();
      const { "x-svc-signature": _, ...withoutSignature } = signed(unsigned, now());
      refused.push(["no signature", withoutSignature, unsigned]);
      for (const [what, h, body] of refused) {
        const id = eventOf(body).event_uuid;
        const before = receiver.handled(id);
        const answer = await receiver.post(h, body);
        expect(answer.status, why(`${what}: ${answer.text}`)).toBe(401);
        expect(receiver.handled(id), why(`${what}: handled`)).toBe(before);
      }

      // The same checks pass a genuine new event: the refusals above were for their flaw.
      const genuine = otherEvent();
      const accepted = await receiver.post(signed(genuine, now()), genuine);
      expect(accepted.status, why("a correctly signed new event")).toBe(200);
      // Its output line may reach this process after its answer (two pipes, no order).
      await awaitHandled(receiver, eventOf(genuine).event_uuid);
      expect(receiver.handled(eventOf(genuine).event_uuid), why("handled")).toBe(1);
    });
  }

  it("manages the subscription with the list, read and patch blocks", async () => {
    await runShell("list");
    await runShell("read");
    await runShell("patch");
  });

  it("rotates the secret: deliveries carry both signatures and each secret verifies one", async () => {
    const previous = subs.node.secret;
    const rotated = JSON.parse(await runShell("rotate")) as { data: { secret: string } };
    const secret = rotated.data.secret;
    expect(secret, label(blockWith("name", "rotate"))).not.toBe(previous);

    // The receiver still holds the previous secret: the delivery verifies with it.
    const first = (await api("POST", `/v1/webhooks/${subs.node.uuid}/test`)) as DeliveryRecord;
    await awaitHandled(node, first.event_uuid);
    const capture = captured(nodeFront, "system.ping");
    expect(eventOf(capture.rawBody).event_uuid).toBe(first.event_uuid);
    const values = String(capture.headers["x-svc-signature"]).split(",");
    expect(values, `after ${label(blockWith("name", "rotate"))}: two signatures`).toHaveLength(2);
    await writeFile(join(workDir, "body.json"), capture.rawBody);
    const timestamp = String(capture.headers["x-svc-timestamp"]);
    const openssl = label(blockWith("name", "openssl"));
    expect(
      (await runShell("openssl", { TIMESTAMP: timestamp, WEBHOOK_SECRET: secret })).trim(),
      openssl,
    ).toBe(values[0]);
    expect(
      (await runShell("openssl", { TIMESTAMP: timestamp, WEBHOOK_SECRET: previous })).trim(),
      openssl,
    ).toBe(values[1]);

    // Given the new secret, it verifies the next delivery with that one.
    subs.node.secret = secret;
    readerEnv.WEBHOOK_SECRET = secret;
    await node.stop();
    await node.start(secret);
    const second = (await api("POST", `/v1/webhooks/${subs.node.uuid}/test`)) as DeliveryRecord;
    await awaitHandled(node, second.event_uuid);
    await settled(subs.node.uuid);
  });

  it("a delivery to an unreachable receiver goes dead; the dead and redeliver blocks bring it back", async () => {
    await node.stop();
    const ping = (await api("POST", `/v1/webhooks/${subs.node.uuid}/test`)) as DeliveryRecord;
    const records = await settled(subs.node.uuid);
    expect(
      records.find((d) => d.delivery_uuid === ping.delivery_uuid)?.status,
      `${node.name} stopped: the ping goes dead`,
    ).toBe("dead");
    await node.start(subs.node.secret);
    const dead = JSON.parse(await runShell("dead")) as { data: DeliveryRecord[] };
    expect(
      dead.data.map((d) => d.delivery_uuid),
      label(blockWith("name", "dead")),
    ).toEqual([ping.delivery_uuid]);
    readerEnv.DELIVERY_UUID = ping.delivery_uuid;
    await runShell("redeliver");
    await awaitHandled(node, ping.event_uuid);
    const after = await settled(subs.node.uuid);
    expect(
      after.find((d) => d.delivery_uuid === ping.delivery_uuid)?.status,
      label(blockWith("name", "redeliver")),
    ).toBe("succeeded");
  });

  it("after an outage, the recover block redelivers every dead delivery of it at once", async () => {
    await node.stop();
    readerEnv.OUTAGE_STARTED = new Date().toISOString();
    const pings = [
      (await api("POST", `/v1/webhooks/${subs.node.uuid}/test`)) as DeliveryRecord,
      (await api("POST", `/v1/webhooks/${subs.node.uuid}/test`)) as DeliveryRecord,
    ];
    const records = await settled(subs.node.uuid);
    for (const ping of pings)
      expect(records.find((d) => d.delivery_uuid === ping.delivery_uuid)?.status).toBe("dead");
    await node.start(subs.node.secret);
    await runShell("recover");
    for (const ping of pings) await awaitHandled(node, ping.event_uuid);
    const after = await settled(subs.node.uuid);
    expect(
      pings.map((p) => after.find((d) => d.delivery_uuid === p.delivery_uuid)?.status),
      label(blockWith("name", "recover")),
    ).toEqual(["succeeded", "succeeded"]);
  });

  it("deletes the subscription with the delete block", async () => {
    await runShell("delete");
    const gone = await fetchJson(`${stack.baseUrl}/v1/webhooks/${subs.node.uuid}`, {
      headers: { authorization: `Bearer ${testToken}` },
    });
    expect(gone.status, label(blockWith("name", "delete"))).toBe(404);
  });

  it("ran every tested block of the guide", () => {
    // The quick start on your machine (`local`) runs in webhook-local-quick-start.test.ts.
    const missed = blocks
      .filter((b) => b.tags.includes("tested") && !b.tags.includes("local") && !ran.has(b))
      .map(label);
    expect(missed, "tested blocks this test does not run").toEqual([]);
  });
});
