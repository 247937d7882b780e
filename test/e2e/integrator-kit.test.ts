/**
 * The integrator kit's packages against a whole private stack (`npm start` isolated for this
 * file). The client: tokens, pages, the events feed, errors per code, idempotent writes, and a
 * real 503 (the legacy database behind a TCP proxy that the test pauses) retried after its
 * Retry-After. The verification libraries: the dispatcher POSTs signed pings to a loopback HTTPS
 * endpoint served by createWebhookHandler; each captured delivery is then checked by verify() and
 * by the Python module, as sent, tampered, with another secret, with the clock shifted both ways,
 * replayed re-signed to the handler, and after a secret rotation (two signatures: either secret
 * verifies).
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer as createHttpServer, type IncomingHttpHeaders } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  InsufficientScopeError,
  IntegrationClient,
  NotFoundError,
  TokenError,
  UnauthenticatedError,
  ValidationError,
  type ClientOptions,
} from "../../packages/client/src/index.ts";
import { createTestCa, TcpProxy, testEnv, waitFor, type TestCa } from "@svc/testing";
import { startPrivateStack, type PrivateStack } from "../support/private-stack.ts";
import {
  createWebhookHandler,
  sign,
  verify,
  type WebhookEvent,
} from "../../packages/webhooks/src/index.ts";

const PYTHON_DIR = fileURLToPath(new URL("../../packages/webhooks-python", import.meta.url));

type Captured = { headers: IncomingHttpHeaders; body: Buffer; event: WebhookEvent };

let ca: TestCa;
let legacy: TcpProxy;
let stack: PrivateStack;
let api: IntegrationClient;
let endpoint: { url: string; close(): void };
let replay: { url: string; close(): void };
const captured: Captured[] = [];
let webhook: { uuid: string; secret: string };

/** The subscriber's HTTPS endpoint: keeps each raw delivery, then hands it to the handler. */
async function startEndpoint(secret: () => string) {
  const server = createHttpsServer({ key: ca.serverKey, cert: ca.serverCert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      // As behind express.raw(): the handler gets the unparsed body as a Buffer.
      const handler = createWebhookHandler({
        secret: secret(),
        onEvent: (event) => void captured.push({ headers: req.headers, body, event }),
      });
      handler(Object.assign(req, { body }), res);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}/hooks`, close: () => server.close() };
}

/** A plain node:http server running the handler on the request stream, for replays. */
async function startReplayTarget(secret: string) {
  const server = createHttpServer(createWebhookHandler({ secret, onEvent: () => undefined }));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => server.close() };
}

async function replayTo(body: Buffer | string, timestamp: string, signature: string) {
  const response = await fetch(replay.url, {
    method: "POST",
    headers: { "x-svc-timestamp": timestamp, "x-svc-signature": signature },
    body,
  });
  return `${response.status} ${await response.text()}`;
}

type PythonCase = {
  body: Buffer;
  timestamp: string;
  signature: string;
  secrets: string[];
  now: number;
};

/** The Python module's verdict on each case: "ok" or the reason it refused. */
function pythonVerdicts(cases: PythonCase[]): string[] {
  const input = cases.map((c) => ({
    ...c,
    body: undefined,
    body_base64: c.body.toString("base64"),
  }));
  const run = spawnSync("python3", ["-m", "tests.verify_cases"], {
    cwd: PYTHON_DIR,
    input: JSON.stringify(input),
    encoding: "utf8",
  });
  expect(run.status, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as Array<{ ok: boolean; reason?: string }>).map((r) =>
    r.ok ? "ok" : r.reason!,
  );
}

/** verify()'s verdict: "ok" or the reason it refused. */
function nodeVerdict(c: PythonCase): string {
  try {
    verify(
      c.body,
      { "X-SVC-Timestamp": c.timestamp, "X-SVC-Signature": c.signature },
      {
        secret: c.secrets,
        now: () => c.now * 1000,
      },
    );
    return "ok";
  } catch (error) {
    return (error as { reason: string }).reason;
  }
}

async function ping(): Promise<Captured> {
  const before = captured.length;
  await api.call("testWebhook", { path: { webhook_uuid: webhook.uuid } });
  await waitFor("the ping at the endpoint", () => captured.length > before, 20_000);
  return captured[before]!;
}

/** A client of the stack's demo client; `seen` records each request it sends and the answer. */
function clientFor(options: Partial<ClientOptions> = {}) {
  const seen: Array<{
    url: URL;
    headers: Headers;
    status: number;
    requestId: string | null;
    at: number;
  }> = [];
  const client = new IntegrationClient({
    baseUrl: stack.baseUrl,
    clientId: stack.demoClient.clientId,
    clientSecret: stack.demoClient.clientSecret,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const url = new URL(String(input));
      seen.push({
        url,
        headers: new Headers(init?.headers),
        status: response.status,
        requestId: response.headers.get("x-request-id"),
        at: Date.now(),
      });
      if (url.pathname === "/v1/applications" && response.status === 503) legacy.resume();
      return response;
    },
    ...options,
  });
  return { client, seen };
}

beforeAll(async () => {
  ca = createTestCa();
  const mysql = new URL(testEnv.TEST_MYSQL_URL);
  legacy = await TcpProxy.start({ host: mysql.hostname, port: Number(mysql.port || 3306) });
  stack = await startPrivateStack({
    env: {
      MYSQL_URL: Object.assign(new URL(mysql), { port: String(legacy.port) }).toString(),
      LEGACY_CONNECT_TIMEOUT_MS: "1500",
      LEGACY_QUERY_TIMEOUT_MS: "1500",
      WEBHOOK_ALLOW_LOOPBACK: "true",
      WEBHOOK_EXTRA_CA_FILE: ca.caFile,
    },
  });
  api = clientFor().client;
  // The endpoint holds the first secret throughout, like a receiver not yet given the new one.
  endpoint = await startEndpoint(() => webhook.secret);
  const created = await api.call("createWebhook", {
    body: { url: endpoint.url, event_types: ["vacancy.updated"] },
  });
  webhook = { uuid: created.data.webhook_uuid, secret: created.data.secret };
  replay = await startReplayTarget(webhook.secret);
}, 180_000);

afterAll(async () => {
  legacy?.resume();
  endpoint?.close();
  replay?.close();
  await stack?.stop();
  ca?.dispose();
});

const statusAndCode = (e: unknown) => [(e as NotFoundError).status, (e as NotFoundError).code];

describe("the client", () => {
  it("gets one token for many calls and renews it shortly before it expires", async () => {
    // Renewing 3,599 s before a 3,600 s lifetime: the token is due again after a second.
    const { client, seen } = clientFor({ refreshBeforeMs: 3_599_000 });
    const tokenRequests = () => seen.filter((s) => s.url.pathname === "/oauth/token").length;
    await Promise.all([1, 2, 3].map(() => client.call("getVersionV1")));
    await client.call("listVacancies", { query: { per_page: 1 } });
    expect(tokenRequests()).toBe(1);
    await new Promise((r) => setTimeout(r, 1_100));
    await client.call("listVacancies", { query: { per_page: 1 } });
    expect(tokenRequests()).toBe(2);
    const basic = seen[0]!.headers.get("authorization")!;
    expect(basic).toMatch(/^Basic /);
  });

  it("walks every page of a list and exposes each page's request id", async () => {
    const ids: string[] = [];
    const requestIds = new Set<string>();
    let last: { total: number; total_pages: number } | undefined;
    for await (const page of api.pages("listPractices", { query: { per_page: 100 } })) {
      ids.push(...page.data.map((p) => p.practice_id));
      requestIds.add(page.requestId);
      expect(page.requestId).toBe(page.meta.request_id);
      last = page.meta.pagination;
    }
    expect(last!.total_pages).toBeGreaterThan(1);
    expect(requestIds.size).toBe(last!.total_pages);
    expect(ids).toHaveLength(last!.total);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("throws one error class per code, with status, code, message, details and request id", async () => {
    const { client: reader, seen } = clientFor();
    const missing = await reader
      .call("getVacancy", { path: { uuid: randomUUID() } })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    const { status, code, requestId } = missing as NotFoundError;
    expect({ status, code }).toEqual({ status: 404, code: "NOT_FOUND" });
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestId).toBe(seen.at(-1)!.requestId);
    expect((missing as Error).message).not.toBe("");

    const invalid = await api.call("listVacancies", { query: { per_page: 1000 } }).catch((e) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(statusAndCode(invalid)).toEqual([422, "VALIDATION_ERROR"]);
    expect((invalid as ValidationError).details.map((d) => d.field)).toEqual(["per_page"]);
    expect((invalid as ValidationError).requestId).toMatch(/^[0-9a-f-]{36}$/);

    const narrow = clientFor({ scope: "vacancies:read" }).client;
    const scope = await narrow.call("listPractices").catch((e: unknown) => e);
    expect(scope).toBeInstanceOf(InsufficientScopeError);
    expect(statusAndCode(scope)).toEqual([403, "INSUFFICIENT_SCOPE"]);

    // A token the service does not accept, sent twice (the client asks for a new one once).
    const forged = clientFor({
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        if (headers.has("authorization") && !String(input).endsWith("/oauth/token"))
          headers.set("authorization", "Bearer not-a-token");
        return fetch(input, { ...init, headers });
      },
    }).client;
    const unauthenticated = await forged.call("listVacancies").catch((e: unknown) => e);
    expect(unauthenticated).toBeInstanceOf(UnauthenticatedError);
    expect(statusAndCode(unauthenticated)).toEqual([401, "UNAUTHENTICATED"]);

    const wrongSecret = clientFor({ clientSecret: "not-the-secret" }).client;
    const refused = await wrongSecret.call("listVacancies").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TokenError);
    const { status: tokenStatus, error } = refused as TokenError;
    expect([tokenStatus, error]).toEqual([401, "invalid_client"]);
  });

  let application: { uuid: string; vacancy: string };

  it("creates an application with a generated Idempotency-Key; the same key replays it", async () => {
    const { client, seen } = clientFor();
    const vacancy = (await client.call("listVacancies", { query: { per_page: 1 } })).data[0]!;
    const body = {
      vacancy_uuid: vacancy.uuid,
      candidate: { email: `kit-${randomUUID()}@example.org`, phone: null },
      consent: true,
    };
    const created = await client.call("createApplication", { body });
    expect(created.status).toBe(201);
    expect(created.replayed).toBe(false);
    const key = seen.at(-1)!.headers.get("idempotency-key")!;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    const again = await client.call("createApplication", { body, idempotencyKey: key });
    expect(again.replayed).toBe(true);
    expect(again.data.application_uuid).toBe(created.data.application_uuid);
    application = { uuid: created.data.application_uuid, vacancy: vacancy.uuid };
  });

  it("follows the events feed's cursor until it has caught up", async () => {
    const feedClient = clientFor({ scope: "webhooks:read applications:read" }).client;
    const seenEvents: string[] = [];
    let lastCursor = "";
    await waitFor("the application.created event in the feed", async () => {
      seenEvents.length = 0;
      for await (const page of feedClient.feed({
        query: { type: ["application.created"], per_page: 1 },
      })) {
        seenEvents.push(...page.data.map((e) => e.payload.entity.id));
        lastCursor = page.meta.pagination.next_cursor;
      }
      return seenEvents.includes(application.uuid);
    });
    expect(new Set(seenEvents).size).toBe(seenEvents.length);
    // Reading on from the last cursor: nothing new.
    const later = await feedClient.call("listEvents", { query: { cursor: lastCursor } });
    expect(later.data).toEqual([]);
    expect(later.meta.pagination.has_more).toBe(false);
  });

  it("retries a 503 after its Retry-After, with the same Idempotency-Key", async () => {
    const { client, seen } = clientFor();
    legacy.pause();
    legacy.cut();
    const body = {
      vacancy_uuid: application.vacancy,
      candidate: { email: `kit-${randomUUID()}@example.org`, phone: null },
      consent: true,
    };
    // The fetch wrapper resumes the legacy database once the first 503 has arrived.
    const created = await client.call("createApplication", { body });
    expect(created.status).toBe(201);
    const attempts = seen.filter((s) => s.url.pathname === "/v1/applications");
    expect(attempts.map((a) => a.status)).toEqual([503, 201]);
    const keys = new Set(attempts.map((a) => a.headers.get("idempotency-key")));
    expect(keys.size).toBe(1);
    // Retry-After: 5, plus up to 1 s of jitter.
    const waited = attempts[1]!.at - attempts[0]!.at;
    expect(waited).toBeGreaterThanOrEqual(5_000);
    expect(waited).toBeLessThan(8_000);
  }, 40_000);
});

describe("verifying real deliveries", () => {
  let delivery: Captured;
  let base: PythonCase;

  it("accepts a delivery as sent: the handler answered 2xx and got the typed event", async () => {
    delivery = await ping();
    expect(delivery.event).toMatchObject({
      event_type: "system.ping",
      event_version: 1,
      entity: { type: "system", id: webhook.uuid },
    });
    expect(delivery.headers["x-svc-event-id"]).toBe(delivery.event.event_uuid);
    // The handler's 204 is what the service records as success.
    await waitFor("the delivery recorded as succeeded", async () => {
      await new Promise((r) => setTimeout(r, 200));
      const listed = await api.call("listWebhookDeliveries", {
        path: { webhook_uuid: webhook.uuid },
      });
      return listed.data[0]?.status === "succeeded";
    });

    base = {
      body: delivery.body,
      timestamp: String(delivery.headers["x-svc-timestamp"]),
      signature: String(delivery.headers["x-svc-signature"]),
      secrets: [webhook.secret],
      now: Math.floor(Date.now() / 1000),
    };
    expect(base.signature).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(nodeVerdict(base)).toBe("ok");
    expect(pythonVerdicts([base])).toEqual(["ok"]);
    expect(await replayTo(base.body, base.timestamp, base.signature)).toBe("204 ");
  });

  it("refuses a tampered body, another secret, and timestamps too old or in the future", async () => {
    const tampered = Buffer.from(base.body.toString("utf8").replace("system.ping", "system.pong"));
    const ts = Number(base.timestamp);
    const cases: Array<[PythonCase, string]> = [
      [{ ...base, body: tampered }, "signature_mismatch"],
      [{ ...base, secrets: ["whsec_not-the-secret"] }, "signature_mismatch"],
      [{ ...base, now: ts + 301 }, "timestamp_too_old"],
      [{ ...base, now: ts - 301 }, "timestamp_in_future"],
      [{ ...base, now: ts + 299 }, "ok"],
    ];
    expect(cases.map(([c]) => nodeVerdict(c))).toEqual(cases.map(([, v]) => v));
    expect(pythonVerdicts(cases.map(([c]) => c))).toEqual(cases.map(([, v]) => v));

    // Replayed to the handler on its real clock: re-signed with a shifted timestamp.
    const now = Math.floor(Date.now() / 1000);
    const resigned = (t: number) =>
      replayTo(base.body, String(t), sign(webhook.secret, t, base.body));
    expect(await replayTo(tampered, base.timestamp, base.signature)).toBe("401 signature_mismatch");
    expect(await resigned(now - 400)).toBe("401 timestamp_too_old");
    expect(await resigned(now + 400)).toBe("401 timestamp_in_future");
  });

  it("after a rotation, accepts the two signatures with either secret", async () => {
    const rotated = await api.call("rotateWebhookSecret", { path: { webhook_uuid: webhook.uuid } });
    const secrets = { previous: webhook.secret, next: rotated.data.secret };
    expect(secrets.next).not.toBe(secrets.previous);

    // The endpoint still holds the previous secret and accepted the delivery.
    const after = await ping();
    const signatures = String(after.headers["x-svc-signature"]).split(",");
    expect(signatures).toHaveLength(2);
    const c: PythonCase = {
      body: after.body,
      timestamp: String(after.headers["x-svc-timestamp"]),
      signature: signatures.join(","),
      secrets: [],
      now: Math.floor(Date.now() / 1000),
    };
    const withEach = [[secrets.previous], [secrets.next], [secrets.next, secrets.previous]];
    const rotationCases = [
      ...withEach.map((s) => ({ ...c, secrets: s })),
      { ...c, secrets: [secrets.next], signature: signatures[1]! },
    ];
    expect(rotationCases.map(nodeVerdict)).toEqual(["ok", "ok", "ok", "signature_mismatch"]);
    expect(pythonVerdicts(rotationCases)).toEqual(["ok", "ok", "ok", "signature_mismatch"]);
  });
});
