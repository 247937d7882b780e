import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSecretBox } from "../src/store/secret-box.ts";
import { fakeResolver, SECRET_KEY, startHarness, type Harness } from "./support/harness.ts";

let h: Harness;
const resolver = fakeResolver({
  "hooks.example.com": ["93.184.216.34"],
  "other.example.org": ["2606:2800:220:1:248:1893:25c8:1946"],
  localhost: ["127.0.0.1", "::1"],
});
const ALICE = "client-alice";
const BOB = "client-bob";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

beforeAll(async () => {
  h = await startHarness({ resolver });
});
afterAll(() => h.close());

async function create(
  owner = ALICE,
  body: unknown = { url: "https://hooks.example.com/in", event_types: ["vacancy.created"] },
) {
  const res = await h.api(owner, "POST", "/v1/webhooks", body);
  expect(res.status).toBe(201);
  return res.body.data as { webhook_uuid: string; secret: string };
}

describe("POST /v1/webhooks", () => {
  it("on the local stack (WEBHOOK_ALLOW_LOOPBACK, as this harness) accepts loopback URLs over http and https, each with a warning in every representation", async () => {
    for (const url of [
      "http://localhost:3000/hooks",
      "https://127.0.0.1:8443/in",
      "http://[::1]/in",
    ]) {
      const created = await h.api(ALICE, "POST", "/v1/webhooks", {
        url,
        event_types: ["vacancy.created"],
      });
      expect(created.status, `${url}: ${created.text}`).toBe(201);
      const id = created.body.data.webhook_uuid as string;
      const read = await h.api(ALICE, "GET", `/v1/webhooks/${id}`);
      const list = await h.api(ALICE, "GET", "/v1/webhooks?per_page=100");
      const listed = list.body.data.find((s: { webhook_uuid: string }) => s.webhook_uuid === id);
      const rotated = await h.api(ALICE, "POST", `/v1/webhooks/${id}/rotate-secret`);
      const patched = await h.api(ALICE, "PATCH", `/v1/webhooks/${id}`, { enabled: true });
      for (const [what, data] of [
        ["create", created.body.data],
        ["read", read.body.data],
        ["list", listed],
        ["rotate", rotated.body.data],
        ["patch", patched.body.data],
      ])
        expect(data.warning, `${url}: ${what}`).toMatch(/^loopback_url: .*WEBHOOK_ALLOW_LOOPBACK/);
      // Moved to a public host, the warning goes.
      const moved = await h.api(ALICE, "PATCH", `/v1/webhooks/${id}`, {
        url: "https://hooks.example.com/in",
      });
      expect(moved.status).toBe(200);
      expect(moved.body.data).not.toHaveProperty("warning");
    }
    // Plain http stays refused for every other host.
    const plain = await h.api(ALICE, "POST", "/v1/webhooks", {
      url: "http://hooks.example.com/in",
      event_types: ["vacancy.created"],
    });
    expect(plain.status).toBe(422);
    expect(plain.body.error.details[0].field).toBe("url");
  });

  it("creates a subscription and shows its secret exactly once", async () => {
    const res = await h.api(ALICE, "POST", "/v1/webhooks", {
      url: "https://hooks.example.com/in",
      event_types: ["vacancy.created", "vacancy.updated"],
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body.success).toBe(true);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual([
      "created_at",
      "disabled_at",
      "disabled_reason",
      "enabled",
      "event_types",
      "previous_secret_expires_at",
      "secret",
      "secret_rotated_at",
      "updated_at",
      "url",
      "webhook_uuid",
    ]);
    expect(data).toMatchObject({
      url: "https://hooks.example.com/in",
      event_types: ["vacancy.created", "vacancy.updated"],
      enabled: true,
      disabled_reason: null,
      disabled_at: null,
      secret_rotated_at: null,
      previous_secret_expires_at: null,
    });
    expect(data.webhook_uuid).toMatch(UUID);
    expect(data.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(data.created_at).toMatch(/\+00:00$/);
    expect(res.headers.get("location")).toBe(`/v1/webhooks/${data.webhook_uuid}`);

    const read = await h.api(ALICE, "GET", `/v1/webhooks/${data.webhook_uuid}`);
    expect(read.status).toBe(200);
    expect(read.text).not.toContain(data.secret);
    expect(read.body.data).not.toHaveProperty("secret");
    const list = await h.api(ALICE, "GET", "/v1/webhooks");
    expect(list.text).not.toContain(data.secret);
  });

  it("stores the secret sealed (AES-256-GCM), not in clear, and only the right row opens it", async () => {
    const { webhook_uuid: id, secret } = await create();
    const { rows } = await h.pool.query<{ secret_sealed: string }>(
      "SELECT secret_sealed FROM webhooks.subscriptions WHERE id = $1",
      [id],
    );
    const sealed = rows[0]!.secret_sealed;
    expect(sealed).not.toContain(secret);
    expect(sealed).toMatch(/^v1\./);
    const box = createSecretBox(SECRET_KEY);
    expect(box.open(sealed, id)).toBe(secret);
    expect(() => box.open(sealed, "00000000-0000-4000-8000-000000000000")).toThrow();
  });

  it("normalises the URL it stores", async () => {
    const res = await h.api(ALICE, "POST", "/v1/webhooks", {
      url: "https://HOOKS.example.com:443/a/../in?x=1",
      event_types: ["practice.updated"],
    });
    expect(res.status).toBe(201);
    expect(res.body.data.url).toBe("https://hooks.example.com/in?x=1");
  });

  it.each([
    [{ event_types: ["vacancy.created"] }, "url"],
    [{ url: "https://hooks.example.com/in" }, "event_types"],
    [{ url: "https://hooks.example.com/in", event_types: [] }, "event_types"],
    [{ url: "https://hooks.example.com/in", event_types: ["vacancy.exploded"] }, "event_types.0"],
    [{ url: 42, event_types: ["vacancy.created"] }, "url"],
    [
      { url: "https://hooks.example.com/in", event_types: ["vacancy.created"], secret: "mine" },
      "secret",
    ],
    [{ url: "https://nowhere.example.net/in", event_types: ["vacancy.created"] }, "url"],
    [{ url: "http://hooks.example.com/in", event_types: ["vacancy.created"] }, "url"],
  ])("answers 422 naming the bad field for %j", async (body, field) => {
    const res = await h.api(ALICE, "POST", "/v1/webhooks", body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it("refuses application.submitted in the sandbox catalogue", async () => {
    const res = await h.api(ALICE, "POST", "/v1/webhooks", {
      url: "https://hooks.example.com/in",
      event_types: ["application.created", "application.submitted"],
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      { field: "event_types.1", message: "is not an event type of the sandbox catalogue" },
    ]);
  });

  it("accepts system.ping and every other sandbox event type", async () => {
    const res = await h.api(ALICE, "POST", "/v1/webhooks", {
      url: "https://other.example.org/in",
      event_types: [
        "vacancy.created",
        "vacancy.updated",
        "vacancy.deleted",
        "practice.created",
        "practice.updated",
        "practice.deleted",
        "candidate.created",
        "application.created",
        "recruitment_case.created",
        "system.ping",
      ],
    });
    expect(res.status).toBe(201);
  });

  it("is 415 for a non-JSON body, 400 for broken JSON", async () => {
    const token = await h.issuer.mint({ clientId: ALICE, scope: "webhooks:write" });
    const form = await fetch(`${h.app.baseUrl}/v1/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "text/plain" },
      body: "url=x",
    });
    expect(form.status).toBe(415);
    const broken = await fetch(`${h.app.baseUrl}/v1/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{",
    });
    expect(broken.status).toBe(400);
  });
});

describe("scopes", () => {
  it("is 401 without a token and 403 naming the scope without webhooks:write or webhooks:read", async () => {
    const anonymous = await fetch(`${h.app.baseUrl}/v1/webhooks`);
    expect(anonymous.status).toBe(401);
    const readOnly = await h.api(
      ALICE,
      "POST",
      "/v1/webhooks",
      { url: "https://hooks.example.com/in", event_types: ["vacancy.created"] },
      "webhooks:read",
    );
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.error.code).toBe("INSUFFICIENT_SCOPE");
    expect(readOnly.body.error.message).toContain("webhooks:write");
    const writeOnly = await h.api(ALICE, "GET", "/v1/webhooks", undefined, "webhooks:write");
    expect(writeOnly.status).toBe(403);
    expect(writeOnly.body.error.message).toContain("webhooks:read");
  });

  it("answers 405 with Allow for a known path and another method", async () => {
    const res = await h.api(ALICE, "PUT", "/v1/webhooks");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST, GET");
  });
});

describe("list, read, update, delete", () => {
  it("lists only the caller's subscriptions, paginated", async () => {
    const carol = `client-carol-${Date.now()}`;
    for (let i = 0; i < 3; i++) await create(carol);
    const page = await h.api(carol, "GET", "/v1/webhooks?per_page=2&page=2");
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta.pagination).toEqual({ page: 2, per_page: 2, total: 3, total_pages: 2 });
    const bad = await h.api(carol, "GET", "/v1/webhooks?per_page=101&colour=red");
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      "colour",
      "per_page",
    ]);
  });

  it("updates url, event types and enabled, re-checking the URL", async () => {
    const { webhook_uuid: id } = await create();
    const res = await h.api(ALICE, "PATCH", `/v1/webhooks/${id}`, {
      url: "https://other.example.org/x",
      event_types: ["practice.deleted"],
      enabled: false,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      url: "https://other.example.org/x",
      event_types: ["practice.deleted"],
      enabled: false,
      disabled_reason: "requested",
      disabled_at: res.body.data.updated_at,
    });
    // Disabling again keeps the first time; enabling clears both.
    const again = await h.api(ALICE, "PATCH", `/v1/webhooks/${id}`, { enabled: false });
    expect(again.body.data.disabled_at).toBe(res.body.data.disabled_at);
    const enabled = await h.api(ALICE, "PATCH", `/v1/webhooks/${id}`, { enabled: true });
    expect(enabled.body.data).toMatchObject({
      enabled: true,
      disabled_reason: null,
      disabled_at: null,
    });
    const internal = await h.api(ALICE, "PATCH", `/v1/webhooks/${id}`, {
      url: "https://10.0.0.8/x",
    });
    expect(internal.status).toBe(422);
    expect(internal.body.error.details[0].field).toBe("url");
    const empty = await h.api(ALICE, "PATCH", `/v1/webhooks/${id}`, {});
    expect(empty.status).toBe(422);
    const unknown = await h.api(ALICE, "PATCH", `/v1/webhooks/${id}`, { secret: "x" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details[0]).toEqual({
      field: "secret",
      message: "is not a known field",
    });
  });

  it("deletes, after which the subscription is 404", async () => {
    const { webhook_uuid: id } = await create();
    const res = await h.api(ALICE, "DELETE", `/v1/webhooks/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ webhook_uuid: id, deleted: true });
    expect((await h.api(ALICE, "GET", `/v1/webhooks/${id}`)).status).toBe(404);
    expect((await h.api(ALICE, "DELETE", `/v1/webhooks/${id}`)).status).toBe(404);
  });

  it("answers 422 for a webhook_uuid that is not a UUID", async () => {
    const res = await h.api(ALICE, "GET", "/v1/webhooks/not-a-uuid");
    expect(res.status).toBe(422);
    expect(res.body.error.details[0].field).toBe("webhook_uuid");
  });

  it("answers 422 naming a query parameter an endpoint does not take", async () => {
    const { webhook_uuid: id } = await create();
    for (const [method, path] of [
      ["GET", `/v1/webhooks/${id}?expand=deliveries`],
      ["POST", `/v1/webhooks/${id}/rotate-secret?now=true`],
    ] as const) {
      const res = await h.api(ALICE, method, path);
      expect(res.status, path).toBe(422);
      expect(
        res.body.error.details.map((d: { field: string }) => d.field),
        path,
      ).toEqual([path.split("?")[1]?.split("=")[0]]);
    }
    expect((await h.api(ALICE, "GET", `/v1/webhooks/${id}`)).status).toBe(200);
  });
});

describe("isolation between clients", () => {
  it("answers 404 for every operation on another client's subscription and its deliveries", async () => {
    const { webhook_uuid: id } = await create(ALICE);
    const foreign = `/v1/webhooks/${id}`;
    const delivery = `${foreign}/deliveries/00000000-0000-4000-8000-000000000000`;
    const attempts: Array<[string, string, unknown?]> = [
      ["GET", foreign],
      ["PATCH", foreign, { enabled: false }],
      ["DELETE", foreign],
      ["POST", `${foreign}/test`],
      ["POST", `${foreign}/rotate-secret`],
      ["GET", `${foreign}/deliveries`],
      ["GET", delivery],
      ["POST", `${delivery}/redeliver`],
    ];
    for (const [method, path, body] of attempts) {
      const res = await h.api(BOB, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    const list = await h.api(BOB, "GET", "/v1/webhooks");
    expect(list.body.data.map((s: { webhook_uuid: string }) => s.webhook_uuid)).not.toContain(id);
    const still = await h.api(ALICE, "GET", foreign);
    expect(still.body.data.enabled).toBe(true);
  });
});

describe("rotate-secret", () => {
  it("returns a new secret once, and records the overlap during which the old one still signs", async () => {
    const { webhook_uuid: id, secret: first } = await create();
    const before = Date.now();
    const res = await h.api(ALICE, "POST", `/v1/webhooks/${id}/rotate-secret`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const {
      secret,
      previous_secret_expires_at: until,
      secret_rotated_at: rotatedAt,
    } = res.body.data;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(first);
    expect(Date.parse(rotatedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(until) - Date.parse(rotatedAt)).toBe(24 * 3_600_000);
    const { rows } = await h.pool.query(
      "SELECT secret_sealed, previous_secret_sealed FROM webhooks.subscriptions WHERE id = $1",
      [id],
    );
    const box = createSecretBox(SECRET_KEY);
    expect(box.open(rows[0].secret_sealed, id)).toBe(secret);
    expect(box.open(rows[0].previous_secret_sealed, id)).toBe(first);
  });
});
