/**
 * `npm run webhooks -- listen` end to end: the real CLI process against a whole private stack
 * (auth issues the token, the dispatcher records the events published on NATS, the webhooks API
 * serves the feed) through a TCP proxy this test cuts and restores, forwarding to a local receiver
 * that verifies every signature with the secret the CLI printed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from "node:http";
import { connect, createServer as createTcpServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEvent, type EventPayload, type EventType } from "@svc/events";
import {
  connectNats,
  drainNats,
  jetstream,
  names,
  publish,
  type NatsConnection,
} from "@svc/messaging";
import { silentLogger } from "@svc/testing";
import { startPrivateStack, type PrivateStack } from "../support/private-stack.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLI = "tools/webhooks.ts";

let stack: PrivateStack;
let nc: NatsConnection;
let db: pg.Pool;
let receiver: Receiver;
let proxy: Proxy;

type Received = { headers: IncomingHttpHeaders; body: string };
type Receiver = { url: string; received: Received[]; close(): Promise<void> };

/** The developer's local endpoint: records every POST and answers 200 (202 for practices). */
async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(req.headers["x-svc-event-type"] === "practice.updated" ? 202 : 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A TCP proxy to the stack's gateway that can be cut (every connection reset, port closed). */
type Proxy = { port: number; cut(): Promise<void>; restore(): Promise<void> };
async function startProxy(target: number): Promise<Proxy> {
  const sockets = new Set<Socket>();
  let server = createTcpServer();
  const serve = (port: number) =>
    new Promise<number>((resolve) => {
      server = createTcpServer((client) => {
        const upstream = connect(target, "127.0.0.1");
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
    });
  const port = await serve(0);
  return {
    port,
    async cut() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.resetAndDestroy();
      });
    },
    async restore() {
      await serve(port);
    },
  };
}

async function publishEvents(type: EventType, count: number): Promise<EventPayload[]> {
  const events: EventPayload[] = [];
  const n = names(stack.natsNamespace);
  for (let i = 0; i < count; i++) {
    const event = buildEvent({ type, entityId: randomUUID(), publicBaseUrl: stack.baseUrl });
    await publish(jetstream(nc), n.eventSubject(type), event, { msgId: event.event_uuid });
    events.push(event);
  }
  return events;
}

async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function startCli(args: string[]): ChildProcess & { out: () => string } {
  const child = spawn(process.execPath, [CLI, "listen", ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      CLIENT_ID: stack.demoClient.clientId,
      CLIENT_SECRET: stack.demoClient.clientSecret,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (out += c));
  return Object.assign(child, { out: () => out });
}

const sign = (secret: string, timestamp: string, body: string) =>
  createHmac("sha256", secret).update(`${timestamp}.${body}`).digest();

beforeAll(async () => {
  stack = await startPrivateStack();
  nc = await connectNats({ servers: stack.natsUrl, name: "listen-e2e", logger: silentLogger() });
  db = new pg.Pool({ connectionString: stack.pgUrl, max: 2 });
  receiver = await startReceiver();
  proxy = await startProxy(stack.gatewayPort);
}, 180_000);

afterAll(async () => {
  await receiver?.close();
  await proxy?.cut().catch(() => undefined);
  await db?.end();
  if (nc) await drainNats(nc);
  await stack?.stop();
});

describe("npm run webhooks -- listen", () => {
  it("forwards every new event of the chosen types, signed like a delivery, across a cut connection, once each; Ctrl+C exits 0", async () => {
    // An event recorded before the listener starts is not forwarded: it starts from now.
    const [before] = await publishEvents("vacancy.updated", 1);
    await waitFor("the earlier event recorded", async () => {
      const r = await db.query("SELECT 1 FROM webhooks.events WHERE event_uuid = $1", [
        before!.event_uuid,
      ]);
      return r.rowCount === 1;
    });
    await new Promise((r) => setTimeout(r, 1_100)); // the start is the server's clock, in seconds

    const cli = startCli([
      "--forward-to",
      receiver.url,
      "--base-url",
      `http://127.0.0.1:${proxy.port}`,
      "--events",
      "vacancy.updated,practice.updated",
      "--poll-ms",
      "200",
    ]);
    const secret = await waitFor(
      "the printed signing secret",
      () => /Signing secret[^:]*: (whsec_\S+)/.exec(cli.out())?.[1],
    );

    const sent = [
      ...(await publishEvents("vacancy.updated", 10)),
      ...(await publishEvents("practice.updated", 10)),
    ];
    const ignored = await publishEvents("candidate.created", 5);
    await waitFor("the first 20 forwarded", () => receiver.received.length >= 20);

    await proxy.cut();
    sent.push(...(await publishEvents("vacancy.updated", 15)));
    await waitFor("the listener to notice the cut", () => cli.out().includes("unreachable"));
    await new Promise((r) => setTimeout(r, 1_000));
    await proxy.restore();
    sent.push(...(await publishEvents("practice.updated", 5)));
    await waitFor("all 40 forwarded", () => receiver.received.length >= 40, 60_000);
    await new Promise((r) => setTimeout(r, 1_000)); // anything extra would arrive now

    const ids = receiver.received.map((r) => r.headers["x-svc-event-id"]);
    expect(ids.length).toBe(sent.length);
    expect(new Set(ids)).toEqual(new Set(sent.map((e) => e.event_uuid)));
    expect(ids).not.toContain(before!.event_uuid);
    for (const e of ignored) expect(ids).not.toContain(e.event_uuid);

    const byId = new Map(sent.map((e) => [e.event_uuid, e]));
    for (const r of receiver.received) {
      const event = byId.get(String(r.headers["x-svc-event-id"]))!;
      // Exactly the production body and headers, signed with the printed secret.
      expect(r.body).toBe(JSON.stringify(event));
      expect(r.headers["x-svc-event-type"]).toBe(event.event_type);
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["user-agent"]).toMatch(/^svc-webhooks\/\d+\.\d+\.\d+/);
      expect(r.headers["x-svc-delivery-id"]).toMatch(/^[0-9a-f-]{36}$/);
      const timestamp = String(r.headers["x-svc-timestamp"]);
      expect(Math.abs(Date.now() / 1000 - Number(timestamp))).toBeLessThan(300);
      const signature = String(r.headers["x-svc-signature"]);
      expect(signature).toMatch(/^v1=[0-9a-f]{64}$/);
      expect(
        timingSafeEqual(Buffer.from(signature.slice(3), "hex"), sign(secret, timestamp, r.body)),
      ).toBe(true);
    }

    // One line per event with the local answer's status.
    for (const e of sent) {
      const status = e.event_type === "practice.updated" ? 202 : 200;
      expect(cli.out()).toMatch(new RegExp(`${e.event_type}  ${e.event_uuid}  -> ${status} `));
    }

    const exited = new Promise<number | null>((resolve) =>
      cli.once("exit", (code) => resolve(code)),
    );
    cli.kill("SIGINT");
    const code = await Promise.race([
      exited,
      new Promise<string>((r) => setTimeout(() => r("still running after 5 s"), 5_000)),
    ]);
    expect(code, cli.out()).toBe(0);
    expect(cli.out()).toContain("Stopped.");
  }, 150_000);
});
