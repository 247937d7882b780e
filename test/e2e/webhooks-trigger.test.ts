/**
 * `npm run webhooks -- trigger <event-type>` against a whole private stack started as `npm start`
 * with WEBHOOK_ALLOW_LOOPBACK: every offered event type is made for real (legacy rows changed in the
 * stack's sandbox legacy database with the primary system's wall clock, applications through the
 * API, a ping), the printed id is that event in the events feed, and a ping reaches a plain-http
 * receiver on localhost, signed. Against a production installation (the webhooks API in
 * production, the only process trigger asks first) it is refused before anything is done.
 */
import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@svc/testing";
import {
  fakeResolver,
  startHarness,
  type Harness,
} from "../../services/webhooks/test/support/harness.ts";
import { runCommand, type CommandResult } from "../support/run-command.ts";
import { stackData, startPrivateStack, type PrivateStack } from "../support/private-stack.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let stack: PrivateStack;
let token: string;
let receiver: Server;
const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];

function trigger(args: string[], env: Record<string, string> = {}): Promise<CommandResult> {
  return runCommand("npm", ["run", "--silent", "webhooks", "--", "trigger", ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      BASE_URL: stack?.baseUrl ?? "",
      CLIENT_ID: stack?.demoClient.clientId ?? "",
      CLIENT_SECRET: stack?.demoClient.clientSecret ?? "",
      LEGACY_DATABASE_URL: stack?.legacyUrl ?? "",
      ...env,
    },
  });
}

const api = (method: string, path: string, body?: unknown) =>
  stackData(stack, token, method, path, body);

beforeAll(async () => {
  stack = await startPrivateStack({
    env: { WEBHOOK_ALLOW_LOOPBACK: "true", RELAY_POLL_MS: "100" },
    // Seven processes starting at once on a shared machine.
    startTimeoutMs: 300_000,
  });
  const res = await fetch(`${stack.baseUrl}/oauth/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${stack.demoClient.clientId}:${stack.demoClient.clientSecret}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials",
  });
  token = ((await res.json()) as { access_token: string }).access_token;
  // Until both detectors recorded their baseline, a change would be absorbed into it.
  const db = new pg.Client({ connectionString: stack.pgUrl });
  await db.connect();
  try {
    for (const schema of ["vacancies", "practices"])
      await waitFor(
        `the ${schema} detector's baseline`,
        async () =>
          ((await db.query(`SELECT 1 FROM ${schema}.change_cursor`).catch(() => undefined))
            ?.rowCount ?? 0) > 0,
        90_000,
      );
  } finally {
    await db.end();
  }
  receiver = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => void (body += c));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
}, 480_000);

afterAll(async () => {
  receiver?.close();
  await stack?.stop();
});

const OFFERED = [
  "vacancy.created",
  "vacancy.updated",
  "vacancy.deleted",
  "practice.created",
  "practice.updated",
  "candidate.created",
  "recruitment_case.created",
  "application.created",
];

describe("npm run webhooks -- trigger", () => {
  it("the stack warned at start that it accepts loopback subscriber URLs", () => {
    expect(stack.output()).toContain(
      "WEBHOOK_ALLOW_LOOPBACK is true: subscriber URLs on this machine's loopback interface",
    );
  });

  for (const type of OFFERED) {
    it(`makes a real ${type}: the printed id is that event in the feed, recorded within seconds`, async () => {
      const before = Date.now();
      const run = await trigger([type, "--json"]);
      expect(run.code, run.stderr).toBe(0);
      const printed = JSON.parse(run.stdout) as {
        event_uuid: string;
        event_type: string;
        entity: { type: string; id: string };
      };
      expect(printed.event_type).toBe(type);
      const event = await api("GET", `/v1/events/${printed.event_uuid}`);
      expect(event.event_type).toBe(type);
      expect(event.payload.entity).toEqual(printed.entity);
      // occurred_at is the legacy modification time for vacancies and practices: written in the
      // primary system's zone it is now, not hours off as a UTC NOW() would make it.
      expect(Math.abs(Date.parse(event.payload.occurred_at) - before)).toBeLessThan(60_000);
      if (type.startsWith("vacancy.") && type !== "vacancy.deleted") {
        const vacancy = await api("GET", `/v1/vacancies/${printed.entity.id}`);
        expect(Math.abs(Date.parse(vacancy.updated_at) - before)).toBeLessThan(60_000);
      }
    }, 120_000);
  }

  it("system.ping: pings the client's only subscription, a plain-http URL on localhost, which receives it signed", async () => {
    const url = `http://localhost:${(receiver.address() as AddressInfo).port}/hooks`;
    const sub = await api("POST", "/v1/webhooks", { url, event_types: ["vacancy.updated"] });
    expect(sub.warning).toMatch(/^loopback_url: /);
    const run = await trigger(["system.ping"]);
    expect(run.code, run.stderr).toBe(0);
    const [type, eventUuid] = run.stdout.trim().split(/\s+/);
    expect(type).toBe("system.ping");
    await waitFor(
      "the ping at the receiver",
      () => received.some((r) => r.headers["x-svc-event-id"] === eventUuid),
      30_000,
    );
    const delivery = received.find((r) => r.headers["x-svc-event-id"] === eventUuid)!;
    const timestamp = String(delivery.headers["x-svc-timestamp"]);
    expect(delivery.headers["x-svc-signature"]).toBe(
      `v1=${createHmac("sha256", sub.secret).update(`${timestamp}.${delivery.body}`).digest("hex")}`,
    );
  }, 120_000);

  it("refuses an event type the sandbox does not offer", async () => {
    const submitted = await trigger(["application.submitted"]);
    expect(submitted.code).toBe(1);
    expect(submitted.stderr).toMatch(/production only/);
  });
});

describe("npm run webhooks -- trigger against production", () => {
  let production: Harness;
  beforeAll(async () => {
    production = await startHarness({
      resolver: fakeResolver(),
      apiEnv: { ENVIRONMENT: "production", WEBHOOK_ALLOW_LOOPBACK: "false" },
    });
  }, 60_000);
  afterAll(() => production?.close());

  it("is refused with a clear message, exit 1, before anything is done", async () => {
    const run = await trigger(["application.created"], {
      BASE_URL: production.app.baseUrl,
      CLIENT_ID: "cl_any",
      CLIENT_SECRET: "any-secret",
    });
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toContain(
      `${production.app.baseUrl} is a production installation: trigger makes real changes and is refused there`,
    );
  });
});
