import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  encodeRevocation,
  REVOCATION_BUCKET_OPTIONS,
  revocationKey,
  startRevocationFeed,
  type RevocationFeed,
} from "@svc/auth";
import { openKv } from "@svc/messaging";
import { fetchJson, recordingLogger, type JsonResponse } from "@svc/testing";
import {
  fakeResolver,
  startHarness,
  waitFor,
  type ApiBody,
  type Harness,
} from "./support/harness.ts";

// The subscriber portal's server side: links, the exchange, the session, the API behind it.
let h: Harness;
let feed: RevocationFeed;
const listeners: Array<Parameters<RevocationFeed["onRevocation"]>[0]> = [];
const logger = recordingLogger();
const filesDir = mkdtempSync(join(tmpdir(), "portal-files-"));
const resolver = fakeResolver({ "hooks.example.com": ["93.184.216.34"] });
const ALICE = "client-alice";
const BOB = "client-bob";

beforeAll(async () => {
  writeFileSync(
    join(filesDir, "index.html"),
    '<!doctype html><html><head><script type="module" src="/portal/assets/app-1.js"></script></head><body>portal-index</body></html>',
  );
  mkdirSync(join(filesDir, "assets"));
  writeFileSync(join(filesDir, "assets", "app-1.js"), "console.log('portal');");
  h = await startHarness({
    resolver,
    logger,
    apiEnv: {
      // An installation others reach (https): the session cookie is Secure.
      PUBLIC_BASE_URL: "https://api.example.test",
      WEBHOOK_ALLOW_LOOPBACK: "false",
      WEBHOOK_PORTAL_DIR: filesDir,
      // Refills slower than any test runs, so the bursts are what the limits tests see.
      WEBHOOK_PORTAL_SESSIONS_BURST: "40",
      WEBHOOK_PORTAL_SESSIONS_PER_MINUTE: "1",
      WEBHOOK_PORTAL_ACTIONS_PER_MINUTE: "1",
    },
    // The real revocation feed, started once the harness has made the NATS namespace.
    revocations: {
      view: { status: (token) => feed.view.status(token) },
      onRevocation: (listener) => listeners.push(listener),
    },
  });
  feed = startRevocationFeed({ config: h.config, name: "portal-test", logger, connection: h.nc });
  for (const listener of listeners) feed.onRevocation(listener);
  await feed.loaded;
});
afterAll(async () => {
  await feed?.stop();
  await h?.close();
  rmSync(filesDir, { recursive: true, force: true });
});

type Link = { id: string; url: string; expires_at: string };

async function link(client: string, body: unknown = {}): Promise<Link> {
  const res = await h.api(client, "POST", "/v1/webhooks/portal-sessions", body);
  expect(res.status, res.text).toBe(201);
  return res.body.data as Link;
}

/** The link's path on the test server (the link itself names the public base URL). */
const local = (url: string) => `${h.app.baseUrl}${new URL(url).pathname}${new URL(url).search}`;

function open(url: string) {
  return fetch(local(url), { redirect: "manual" });
}

/** A browser's view of one session: its cookie and CSRF token. */
type Browser = {
  cookie: string;
  csrf: string;
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<JsonResponse<ApiBody>>;
};

async function signIn(client: string, body: unknown = {}): Promise<Browser & { id: string }> {
  const made = await link(client, body);
  const res = await open(made.url);
  expect(res.status).toBe(303);
  const cookie = /^portal_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")![1]!;
  const browser: Browser = {
    cookie,
    csrf: "",
    call: (method, path, payload, headers = {}) =>
      fetchJson(`${h.app.baseUrl}/portal/api${path}`, {
        method,
        headers: {
          cookie: `portal_session=${cookie}`,
          ...(method !== "GET" && { "x-csrf-token": browser.csrf }),
          ...(payload !== undefined && { "content-type": "application/json" }),
          ...headers,
        },
        ...(payload !== undefined && { body: JSON.stringify(payload) }),
      }),
  };
  const session = await browser.call("GET", "/session");
  expect(session.status).toBe(200);
  browser.csrf = session.body.data.csrf_token;
  return { ...browser, id: made.id };
}

async function subscription(client: string): Promise<string> {
  const res = await h.api(client, "POST", "/v1/webhooks", {
    url: "https://hooks.example.com/in",
    event_types: ["vacancy.created"],
  });
  expect(res.status).toBe(201);
  return res.body.data.webhook_uuid as string;
}

describe("portal links", () => {
  it("a link opens once: the token becomes an HttpOnly, Secure, SameSite=Strict cookie on /portal, with a 303 and no Referer", async () => {
    const made = await link(ALICE);
    expect(new URL(made.url).origin).toBe(h.config.PUBLIC_BASE_URL);
    expect(new URL(made.url).pathname).toBe("/portal/open");
    const res = await open(made.url);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/portal/");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^portal_session=[^;]+; /);
    for (const attribute of ["HttpOnly", "Secure", "SameSite=Strict", "Path=/portal"])
      expect(cookie).toContain(attribute);

    const again = await open(made.url);
    expect(again.status).toBe(410);
    const page = await again.text();
    expect(page).toContain("already used");
    expect(page).not.toContain(new URL(made.url).searchParams.get("token")!);
    expect(again.headers.get("set-cookie")).toBeNull();
  });

  it("keeps only hashes: neither the link's token nor the cookie is in the database", async () => {
    const made = await link(ALICE);
    const token = new URL(made.url).searchParams.get("token")!;
    const res = await open(made.url);
    const cookie = /^portal_session=([^;]+)/.exec(res.headers.get("set-cookie")!)![1]!;
    const { rows } = await h.pool.query("SELECT * FROM webhooks.portal_sessions WHERE id = $1", [
      made.id,
    ]);
    const stored = JSON.stringify(rows);
    expect(rows).toHaveLength(1);
    expect(stored).not.toContain(token.split(".")[1]);
    expect(stored).not.toContain(cookie.split(".")[1]);
  });

  it("refuses an unknown or tampered token, an expired and a revoked link, each with its page", async () => {
    const made = await link(ALICE);
    const tampered = made.url.replace(
      /token=([^.]+)\.(.)/,
      (_m, id, c) => `token=${id}.${c === "A" ? "B" : "A"}`,
    );
    const bad = await open(tampered);
    expect(bad.status).toBe(404);
    expect(await bad.text()).toContain("not valid");
    const missing = await fetch(`${h.app.baseUrl}/portal/open`, { redirect: "manual" });
    expect(missing.status).toBe(404);

    // The tampered try did not use the link up.
    const expiring = await link(ALICE);
    await h.pool.query(
      "UPDATE webhooks.portal_sessions SET expires_at = now() - interval '1 second' WHERE id = $1",
      [expiring.id],
    );
    const expired = await open(expiring.url);
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain("expired");

    const revoked = await h.api(ALICE, "DELETE", `/v1/webhooks/portal-sessions/${made.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: made.id, revoked_reason: "requested" });
    const refused = await open(made.url);
    expect(refused.status).toBe(410);
    expect(await refused.text()).toContain("revoked");
  });

  it("lists the client's sessions, never another client's, and never a link", async () => {
    const mine = await link(ALICE);
    const theirs = await link(BOB);
    const list = await h.api(ALICE, "GET", "/v1/webhooks/portal-sessions?per_page=100");
    expect(list.status).toBe(200);
    const ids = (list.body.data as Array<{ id: string }>).map((s) => s.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
    expect(list.text).not.toContain("token");
    const foreign = await h.api(ALICE, "DELETE", `/v1/webhooks/portal-sessions/${theirs.id}`);
    expect(foreign.status).toBe(404);
  });

  it("refuses a subscription of another client and a ttl above the maximum", async () => {
    const bobs = await subscription(BOB);
    const res = await h.api(ALICE, "POST", "/v1/webhooks/portal-sessions", {
      subscription_ids: [bobs],
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      { field: "subscription_ids.0", message: "is not a subscription of this client" },
    ]);
    const long = await h.api(ALICE, "POST", "/v1/webhooks/portal-sessions", { ttl_seconds: 3601 });
    expect(long.status).toBe(422);
  });

  it("rate-limits link creation per client", async () => {
    const client = "client-eager";
    const statuses: number[] = [];
    for (let i = 0; i < 42; i++)
      statuses.push((await h.api(client, "POST", "/v1/webhooks/portal-sessions", {})).status);
    expect(statuses.slice(0, 40)).toEqual(Array(40).fill(201));
    expect(statuses.slice(40)).toEqual([429, 429]);
    const other = await h.api("client-calm", "POST", "/v1/webhooks/portal-sessions", {});
    expect(other.status).toBe(201);
  });
});

describe("the portal session", () => {
  it("describes itself, with a CSRF token, and the API answers behind it as the client", async () => {
    const alice = await signIn(ALICE);
    const session = await alice.call("GET", "/session");
    expect(session.body.data).toMatchObject({
      client_id: ALICE,
      read_only: false,
      subscription_ids: null,
      environment: "sandbox",
    });
    expect(session.body.data.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");

    const created = await alice.call("POST", "/v1/webhooks", {
      url: "https://hooks.example.com/portal",
      event_types: ["vacancy.created"],
    });
    expect(created.status).toBe(201);
    expect(created.body.data.secret).toMatch(/^whsec_/);
    const id = created.body.data.webhook_uuid as string;
    const viaApi = await h.api(ALICE, "GET", `/v1/webhooks/${id}`);
    expect(viaApi.status).toBe(200);

    const ping = await alice.call("POST", `/v1/webhooks/${id}/test`);
    expect(ping.status).toBe(202);
    const deliveries = await alice.call("GET", `/v1/webhooks/${id}/deliveries`);
    expect(deliveries.body.data.map((d: { delivery_uuid: string }) => d.delivery_uuid)).toEqual([
      ping.body.data.delivery_uuid,
    ]);
    const rotated = await alice.call("POST", `/v1/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.previous_secret_expires_at).not.toBeNull();
    const bad = await alice.call("PATCH", `/v1/webhooks/${id}`, { url: "http://10.0.0.1/x" });
    expect(bad.status).toBe(422);
    expect(bad.body.success).toBe(false);
  });

  it("sees only its own client's subscriptions (two clients)", async () => {
    const alices = await subscription(ALICE);
    const bobs = await subscription(BOB);
    const alice = await signIn(ALICE);
    const bob = await signIn(BOB);
    const list = await alice.call("GET", "/v1/webhooks?per_page=100");
    const ids = list.body.data.map((s: { webhook_uuid: string }) => s.webhook_uuid);
    expect(ids).toContain(alices);
    expect(ids).not.toContain(bobs);
    expect((await alice.call("GET", `/v1/webhooks/${bobs}`)).status).toBe(404);
    expect((await alice.call("GET", `/v1/webhooks/${bobs}/deliveries`)).status).toBe(404);
    expect((await alice.call("DELETE", `/v1/webhooks/${bobs}`)).status).toBe(404);
    expect((await bob.call("GET", `/v1/webhooks/${bobs}`)).status).toBe(200);
    expect((await h.api(BOB, "GET", `/v1/webhooks/${bobs}`)).status).toBe(200);
  });

  it("is limited to the link's subscriptions: others do not exist, none can be created", async () => {
    const first = await subscription(ALICE);
    const second = await subscription(ALICE);
    const limited = await signIn(ALICE, { subscription_ids: [first] });
    const list = await limited.call("GET", "/v1/webhooks?per_page=100");
    expect(list.body.data.map((s: { webhook_uuid: string }) => s.webhook_uuid)).toEqual([first]);
    expect(list.body.meta.pagination.total).toBe(1);
    expect((await limited.call("GET", `/v1/webhooks/${second}`)).status).toBe(404);
    expect((await limited.call("PATCH", `/v1/webhooks/${first}`, { enabled: false })).status).toBe(
      200,
    );
    const create = await limited.call("POST", "/v1/webhooks", {
      url: "https://hooks.example.com/more",
      event_types: ["vacancy.created"],
    });
    expect(create.status).toBe(403);
    expect(create.body.error.code).toBe("INSUFFICIENT_SCOPE");
  });

  it("read-only refuses every change with 403 and still reads", async () => {
    const id = await subscription(ALICE);
    const reader = await signIn(ALICE, { read_only: true });
    expect((await reader.call("GET", `/v1/webhooks/${id}`)).status).toBe(200);
    for (const [method, path, body] of [
      ["PATCH", `/v1/webhooks/${id}`, { enabled: false }],
      ["DELETE", `/v1/webhooks/${id}`, undefined],
      ["POST", `/v1/webhooks/${id}/rotate-secret`, undefined],
      ["POST", `/v1/webhooks/${id}/test`, undefined],
    ] as const) {
      const res = await reader.call(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toMatchObject({ success: false, error: { code: "INSUFFICIENT_SCOPE" } });
    }
    expect((await h.api(ALICE, "GET", `/v1/webhooks/${id}`)).body.data.enabled).toBe(true);
  });

  it("refuses a change without the CSRF token, with a wrong one, or from another origin", async () => {
    const id = await subscription(ALICE);
    const alice = await signIn(ALICE);
    const change = { enabled: false };
    const none = await fetchJson<ApiBody>(`${h.app.baseUrl}/portal/api/v1/webhooks/${id}`, {
      method: "PATCH",
      headers: { cookie: `portal_session=${alice.cookie}`, "content-type": "application/json" },
      body: JSON.stringify(change),
    });
    expect(none.status).toBe(403);
    expect(none.body.error.code).toBe("CSRF_REJECTED");
    const wrong = await alice.call("PATCH", `/v1/webhooks/${id}`, change, {
      "x-csrf-token": alice.csrf.replace(/^./, (c) => (c === "A" ? "B" : "A")),
    });
    expect(wrong.status).toBe(403);
    const foreign = await alice.call("PATCH", `/v1/webhooks/${id}`, change, {
      origin: "https://attacker.example",
    });
    expect(foreign.status).toBe(403);
    const crossSite = await alice.call("PATCH", `/v1/webhooks/${id}`, change, {
      "sec-fetch-site": "cross-site",
    });
    expect(crossSite.status).toBe(403);
    expect((await h.api(ALICE, "GET", `/v1/webhooks/${id}`)).body.data.enabled).toBe(true);
    const same = await alice.call("PATCH", `/v1/webhooks/${id}`, change, {
      origin: h.config.PUBLIC_BASE_URL,
      "sec-fetch-site": "same-origin",
    });
    expect(same.status).toBe(200);
  });

  it("ends when revoked, when it expires, and when its client is revoked", async () => {
    const revoked = await signIn(ALICE);
    expect((await revoked.call("GET", "/v1/webhooks")).status).toBe(200);
    await h.api(ALICE, "DELETE", `/v1/webhooks/portal-sessions/${revoked.id}`);
    const after = await revoked.call("GET", "/v1/webhooks");
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("UNAUTHENTICATED");

    const expiring = await signIn(ALICE);
    await h.pool.query(
      "UPDATE webhooks.portal_sessions SET expires_at = now() - interval '1 second' WHERE id = $1",
      [expiring.id],
    );
    expect((await expiring.call("GET", "/session")).status).toBe(401);

    const client = "client-revoked";
    const session = await signIn(client);
    const pending = await link(client);
    const kv = await openKv(h.nc, h.n.revocationsBucket, REVOCATION_BUCKET_OPTIONS);
    await kv.put(
      revocationKey(client),
      encodeRevocation({ clientId: client, notAfterMs: Date.now(), reason: "revoked" }),
    );
    await waitFor(
      "the session refused",
      async () => (await session.call("GET", "/session")).status === 401,
    );
    await waitFor("the link revoked", async () => {
      const { rows } = await h.pool.query(
        "SELECT revoked_reason FROM webhooks.portal_sessions WHERE id = $1",
        [pending.id],
      );
      return rows[0]?.revoked_reason === "client_revoked";
    });
    const refused = await open(pending.url);
    expect(refused.status).toBe(410);
    expect(await refused.text()).toContain("revoked");
  });

  it("audit-logs every change with the client and the session, never a token, cookie or secret", async () => {
    const alice = await signIn(ALICE);
    const created = await alice.call("POST", "/v1/webhooks", {
      url: "https://hooks.example.com/audited",
      event_types: ["vacancy.created"],
    });
    const id = created.body.data.webhook_uuid as string;
    await alice.call("POST", `/v1/webhooks/${id}/rotate-secret`);
    const lines = logger.entries.filter(
      (e) => (e.obj as { portal_session_id?: string }).portal_session_id === alice.id,
    );
    expect(lines.map((e) => (e.obj as { action: string }).action)).toEqual([
      "createPortalSession",
      "openPortalLink",
      "createWebhook",
      "rotateWebhookSecret",
    ]);
    expect(lines[3]!.obj).toMatchObject({ client_id: ALICE, webhook_uuid: id, status: 200 });
    const all = JSON.stringify(logger.entries);
    expect(all).not.toContain(alice.cookie.split(".")[1]);
    expect(all).not.toContain(alice.csrf);
    expect(all).not.toContain(created.body.data.secret);
    expect(all).not.toContain("whsec_");
  });

  it("rate-limits a session's changes", async () => {
    const id = await subscription(ALICE);
    const alice = await signIn(ALICE);
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++)
      statuses.push(
        (await alice.call("PATCH", `/v1/webhooks/${id}`, { enabled: i % 2 === 0 })).status,
      );
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(20)).toEqual([429, 429]);
    // Another session of the same client is not slowed down.
    const other = await signIn(ALICE);
    expect((await other.call("PATCH", `/v1/webhooks/${id}`, { enabled: true })).status).toBe(200);
  });

  it("answers 401 without a cookie and with a forged one", async () => {
    const none = await fetchJson<ApiBody>(`${h.app.baseUrl}/portal/api/session`);
    expect(none.status).toBe(401);
    const alice = await signIn(ALICE);
    const forged = `${alice.cookie.split(".")[0]}.${"A".repeat(43)}`;
    const res = await fetchJson<ApiBody>(`${h.app.baseUrl}/portal/api/v1/webhooks`, {
      headers: { cookie: `portal_session=${forged}` },
    });
    expect(res.status).toBe(401);
  });
});

describe("deliveries across subscriptions and the event catalogue", () => {
  it("lists the deliveries of every subscription of the client, filtered by status, event type and time, within the session's subset", async () => {
    const client = "client-lists";
    const first = await subscription(client);
    const second = await subscription(client);
    const foreign = await subscription("client-other-lists");
    const pings = [];
    for (const id of [first, second, foreign])
      pings.push(
        (
          await h.api(
            id === foreign ? "client-other-lists" : client,
            "POST",
            `/v1/webhooks/${id}/test`,
          )
        ).body.data,
      );
    // One older delivery, to filter by time.
    await h.pool.query(
      "UPDATE webhooks.deliveries SET created_at = now() - interval '2 days' WHERE id = $1",
      [pings[1].delivery_uuid],
    );
    const ids = (res: JsonResponse<ApiBody>) =>
      res.body.data.map((d: { delivery_uuid: string }) => d.delivery_uuid).sort();

    const all = await h.api(client, "GET", "/v1/webhooks/deliveries");
    expect(all.status).toBe(200);
    expect(ids(all)).toEqual([pings[0].delivery_uuid, pings[1].delivery_uuid].sort());
    const since = new Date(Date.now() - 86_400_000).toISOString();
    const recent = await h.api(
      client,
      "GET",
      `/v1/webhooks/deliveries?created_since=${encodeURIComponent(since)}&event_type=system.ping&status=pending`,
    );
    expect(ids(recent)).toEqual([pings[0].delivery_uuid]);
    const older = await h.api(
      client,
      "GET",
      `/v1/webhooks/${second}/deliveries?created_before=${encodeURIComponent(since)}`,
    );
    expect(ids(older)).toEqual([pings[1].delivery_uuid]);
    const otherType = await h.api(
      client,
      "GET",
      "/v1/webhooks/deliveries?event_type=vacancy.created",
    );
    expect(otherType.body.data).toEqual([]);
    const badType = await h.api(client, "GET", "/v1/webhooks/deliveries?event_type=nope");
    expect(badType.status).toBe(422);

    const limited = await signIn(client, { subscription_ids: [second] });
    const viaPortal = await limited.call("GET", "/v1/webhooks/deliveries");
    expect(ids(viaPortal)).toEqual([pings[1].delivery_uuid]);
    const detail = await limited.call(
      "GET",
      `/v1/webhooks/${second}/deliveries/${pings[1].delivery_uuid}`,
    );
    expect(detail.status).toBe(200);
    expect(detail.body.data.attempts).toEqual([]);
  });

  it("pages the deliveries of several subscriptions newest first, their times interleaved", async () => {
    const client = "client-interleaved";
    const subs = [await subscription(client), await subscription(client)];
    const made: Array<{ id: string; minutesAgo: number }> = [];
    for (let i = 0; i < 6; i++) {
      const sub = subs[i % 2]!;
      const ping = (await h.api(client, "POST", `/v1/webhooks/${sub}/test`)).body.data;
      // Minutes ago: 9, 4, 7, 2, 5, 0: alternately older and newer than the other's.
      const minutesAgo = [9, 4, 7, 2, 5, 0][i]!;
      await h.pool.query(
        "UPDATE webhooks.deliveries SET created_at = now() - make_interval(mins => $2) WHERE id = $1",
        [ping.delivery_uuid, minutesAgo],
      );
      made.push({ id: ping.delivery_uuid, minutesAgo });
    }
    const newestFirst = made.sort((a, b) => a.minutesAgo - b.minutesAgo).map((d) => d.id);
    const pages = [];
    for (const page of [1, 2, 3]) {
      const res = await h.api(client, "GET", `/v1/webhooks/deliveries?per_page=2&page=${page}`);
      expect(res.status).toBe(200);
      expect(res.body.meta.pagination).toMatchObject({ total: 6, total_pages: 3 });
      pages.push(...res.body.data.map((d: { delivery_uuid: string }) => d.delivery_uuid));
    }
    expect(pages).toEqual(newestFirst);
  });

  it("shows the environment's event catalogue with schemas and example payloads", async () => {
    const alice = await signIn(ALICE);
    const res = await alice.call("GET", "/v1/webhooks/event-types");
    expect(res.status).toBe(200);
    const types = res.body.data.map((t: { event_type: string }) => t.event_type);
    expect(types).toContain("vacancy.created");
    expect(types).not.toContain("application.submitted"); // the sandbox catalogue
    const vacancy = res.body.data.find(
      (t: { event_type: string }) => t.event_type === "vacancy.created",
    );
    expect(vacancy.occurred_at).toContain("modification time");
    expect(vacancy.schema.properties.event_type).toEqual({ const: "vacancy.created" });
    expect(vacancy.example).toMatchObject({
      event_type: "vacancy.created",
      entity: { type: "vacancy" },
      links: { self: `${h.config.PUBLIC_BASE_URL}/v1/vacancies/example-1` },
    });
    const viaApi = await h.api(ALICE, "GET", "/v1/webhooks/event-types");
    expect(viaApi.body.data).toEqual(res.body.data);
  });

  it("reads the events feed with the scopes of the link's creator", async () => {
    const made = await h.api(
      "client-feed",
      "POST",
      "/v1/webhooks/portal-sessions",
      {},
      "webhooks:read webhooks:write vacancies:read",
    );
    const cookie = /^portal_session=([^;]+)/.exec(
      (await open(made.body.data.url)).headers.get("set-cookie")!,
    )![1]!;
    const get = (path: string) =>
      fetchJson<ApiBody>(`${h.app.baseUrl}/portal/api${path}`, {
        headers: { cookie: `portal_session=${cookie}` },
      });
    expect((await get("/v1/events?type=vacancy.created")).status).toBe(200);
    expect((await get("/v1/events?type=practice.updated")).status).toBe(403);
  });
});

describe("the portal's files", () => {
  it("serves the built index and assets under /portal/ with a strict CSP", async () => {
    const index = await fetch(`${h.app.baseUrl}/portal/`, { headers: { accept: "text/html" } });
    expect(index.status).toBe(200);
    expect(await index.text()).toContain("portal-index");
    const csp = index.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(index.headers.get("x-content-type-options")).toBe("nosniff");
    const asset = await fetch(`${h.app.baseUrl}/portal/assets/app-1.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toContain("javascript");
    expect(asset.headers.get("cache-control")).toContain("immutable");
    const deep = await fetch(`${h.app.baseUrl}/portal/deliveries`, {
      headers: { accept: "text/html" },
    });
    expect(await deep.text()).toContain("portal-index");
    const missingAsset = await fetch(`${h.app.baseUrl}/portal/assets/none.js`, {
      headers: { accept: "application/javascript" },
    });
    expect(missingAsset.status).toBe(404);
    const unknownApi = await fetchJson<ApiBody>(`${h.app.baseUrl}/portal/api/nothing`);
    expect(unknownApi.status).toBe(404);
    expect(unknownApi.body.error.code).toBe("NOT_FOUND");
  });

  it("serves a placeholder when the portal is not built", async () => {
    rmSync(join(filesDir, "index.html"));
    const res = await fetch(`${h.app.baseUrl}/portal/`, { headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("not built");
  });
});
