import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "@svc/auth";
import { runClientCommand } from "../src/cli/client-commands.ts";
import {
  ClientManager,
  ClientNotFoundError,
  ClientRuleError,
} from "../src/domain/clients/client-manager.ts";
import { ensureDemoClient } from "../src/cli/demo-client.ts";
import { startAuth, type AuthUnderTest } from "./support/harness.ts";

let auth: AuthUnderTest;
let production: ClientManager;
beforeAll(async () => {
  auth = await startAuth();
  // The same store seen by a production installation's management, for the production-only rules.
  production = new ClientManager({
    store: auth.store,
    environment: "production",
    publish: async () => {},
  });
});
afterAll(() => auth.close());

describe("clients: generated credentials", () => {
  it("generates a URL-safe id and a secret with 256 random bits, and stores only an argon2id hash", async () => {
    const { client, secret } = await auth.manager.create({
      name: "Acme ATS",
      scopes: ["vacancies:read"],
    });
    expect(client.id).toMatch(/^cl_[A-Za-z0-9_-]{22}$/);
    expect(secret).toMatch(/^cs_[A-Za-z0-9_-]{43}$/); // 43 base64url characters = 256 bits
    const row = (await auth.pool.query("SELECT * FROM auth.clients WHERE id = $1", [client.id]))
      .rows[0] as Record<string, unknown>;
    expect(row.secret_hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(JSON.stringify(row)).not.toContain(secret.slice(3));
    expect(row).toMatchObject({
      name: "Acme ATS",
      scopes: ["vacancies:read"],
      status: "active",
      is_crm_mirror: false,
      expires_at: null,
      rotated_at: null,
      revoked_at: null,
    });
    expect(row.created_at).toBeInstanceOf(Date);
  });

  it("never shows a secret or its hash when listing", async () => {
    const { secret } = await auth.manager.create({ name: "listed", scopes: ["practices:read"] });
    const listed = JSON.stringify(await auth.manager.list());
    expect(listed).not.toContain(secret);
    expect(listed).not.toContain("argon2");
  });
});

describe("clients: scopes per environment", () => {
  it.each<[string, () => Promise<unknown>, RegExp]>([
    [
      "crm-mirror:write in the sandbox",
      () => auth.manager.create({ name: "x", scopes: ["crm-mirror:write"], isCrmMirror: true }),
      /sandbox environment has no CRM mirror/,
    ],
    [
      "crm-mirror:write without the mirror flag",
      () => production.create({ name: "x", scopes: ["crm-mirror:write"] }),
      /only be given to the CRM mirror client/,
    ],
    [
      "an unknown scope",
      () => auth.manager.create({ name: "x", scopes: ["admin"] }),
      /scope 'admin' does not exist in the sandbox/,
    ],
    ["no scope at all", () => auth.manager.create({ name: "x", scopes: [] }), /at least one scope/],
    ["an empty name", () => auth.manager.create({ name: " ", scopes: ["vacancies:read"] }), /name/],
    [
      "an expiry in the past",
      () =>
        auth.manager.create({
          name: "x",
          scopes: ["vacancies:read"],
          expiresAt: new Date(Date.now() - 1_000),
        }),
      /future/,
    ],
  ])("refuses %s", async (_name, attempt, message) => {
    await expect(attempt()).rejects.toBeInstanceOf(ClientRuleError);
    await expect(attempt()).rejects.toThrow(message);
  });

  it("gives crm-mirror:write to the one CRM mirror client in production, and refuses a second active one", async () => {
    const { client } = await production.create({
      name: "CRM",
      scopes: [...SCOPES],
      isCrmMirror: true,
    });
    expect(client.scopes).toEqual([...SCOPES]);
    expect(client.isCrmMirror).toBe(true);
    await expect(
      production.create({ name: "CRM 2", scopes: ["crm-mirror:write"], isCrmMirror: true }),
    ).rejects.toThrow(/already exists/);
    await production.revoke(client.id);
    await expect(
      production.create({ name: "CRM 2", scopes: ["crm-mirror:write"], isCrmMirror: true }),
    ).resolves.toBeDefined();
  });

  it("is guarded by the database too: crm-mirror:write on a non-mirror row is rejected", async () => {
    await expect(
      auth.store.insert({
        id: "cl_direct",
        name: "direct",
        secretHash: "x",
        scopes: ["crm-mirror:write"],
        isCrmMirror: false,
        expiresAt: null,
      }),
    ).rejects.toMatchObject({
      cause: { constraint: "clients_crm_mirror_scope" },
    });
  });
});

describe("clients: rotate, revoke, expire", () => {
  it("rotates an active client's secret and records when; a revoked or expired one cannot be rotated", async () => {
    const { client, secret } = await auth.manager.create({
      name: "rotating",
      scopes: ["vacancies:read"],
    });
    const rotated = await auth.manager.rotate(client.id);
    expect(rotated.secret).not.toBe(secret);
    expect(rotated.client.rotatedAt).toBeInstanceOf(Date);
    expect((await auth.token(client.id, secret)).status).toBe(401);
    expect((await auth.token(client.id, rotated.secret)).status).toBe(200);
    await auth.manager.revoke(client.id);
    await expect(auth.manager.rotate(client.id)).rejects.toThrow(/is revoked/);
    await expect(auth.manager.expire(client.id)).rejects.toThrow(/already revoked/);
    await expect(auth.manager.rotate("cl_nope")).rejects.toBeInstanceOf(ClientNotFoundError);
  });

  it("keeps the first revocation time when revoked twice (the second call only re-publishes)", async () => {
    const { client } = await auth.manager.create({ name: "twice", scopes: ["vacancies:read"] });
    const first = await auth.manager.revoke(client.id);
    const second = await auth.manager.revoke(client.id);
    expect(second.client.revokedAt).toEqual(first.client.revokedAt);
    expect(second.client.state).toBe("revoked");
  });
});

describe("npm run clients (the CLI's commands)", () => {
  async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runClientCommand(auth.manager, "sandbox", argv, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    });
    return { code, out: out.join("\n"), err: err.join("\n") };
  }

  it("shows a secret exactly at create and at rotate, never in list, revoke or expire", async () => {
    const created = await run(
      "create",
      "--name",
      "CLI client",
      "--scopes",
      "vacancies:read,practices:read",
      "--json",
    );
    expect(created.code).toBe(0);
    const { client, client_secret: secret } = JSON.parse(created.out) as {
      client: { id: string; scopes: string[] };
      client_secret: string;
    };
    expect(client.scopes).toEqual(["practices:read", "vacancies:read"]);
    const rotated = await run("rotate", client.id);
    expect(rotated.out).toMatch(/client_secret: cs_/);
    const newSecret = /client_secret: (\S+)/.exec(rotated.out)?.[1] ?? "";
    for (const other of [
      await run("list"),
      await run("expire", client.id, "--at", "2099-01-01T00:00:00Z"),
      await run("revoke", client.id),
    ]) {
      expect(other.code).toBe(0);
      expect(other.out + other.err).not.toContain(secret);
      expect(other.out + other.err).not.toContain(newSecret);
    }
    expect((await run("list")).out).toContain(`${client.id}  revoked`);
  });

  it("creates a client with every scope of the environment with --all-scopes", async () => {
    const created = await run("create", "--name", "all", "--all-scopes");
    expect(created.out).toContain(
      "[practices:read vacancies:read candidates:read applications:read applications:write recruitment-cases:read webhooks:read webhooks:write]",
    );
  });

  it("exits 1 on a client rule, 2 with usage on bad input, 4 for an unknown client, 3 when a revocation is saved but not published", async () => {
    expect((await run("create", "--name", "x", "--scopes", "admin")).code).toBe(1);
    const unknown = await run("frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("Usage: npm run clients");
    const badDate = await run("expire", "cl_x", "--at", "tomorrow");
    expect(badDate.code).toBe(2);
    expect(badDate.err).toContain("Usage: npm run clients -- expire <client_id>");
    expect((await run("create", "--scopes", "vacancies:read")).code).toBe(2);
    expect((await run("revoke", "cl_nope")).code).toBe(4);
    const { client } = await auth.manager.create({ name: "offline", scopes: ["vacancies:read"] });
    const offline = new ClientManager({
      store: auth.store,
      environment: "sandbox",
      publish: () => Promise.reject(new Error("NATS is down")),
    });
    const err: string[] = [];
    expect(
      await runClientCommand(offline, "sandbox", ["revoke", client.id], {
        out: () => {},
        err: (l) => err.push(l),
      }),
    ).toBe(3);
    expect(err.join("\n")).toContain("not yet published");
  });
});

describe("the demo client of npm start", () => {
  it("is created once with every sandbox scope, reused across starts, and re-created when gone from the database", async () => {
    const dir = await mkdtemp(join(tmpdir(), "demo-client-"));
    const file = join(dir, "nested", "demo-client.json");
    try {
      const first = await ensureDemoClient({ databaseUrl: auth.database.url, file });
      expect(first.created).toBe(true);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
        client_id: first.clientId,
        client_secret: first.clientSecret,
      });
      const again = await ensureDemoClient({ databaseUrl: auth.database.url, file });
      expect(again).toEqual({ ...first, created: false });
      const res = await auth.token(first.clientId, first.clientSecret);
      expect(res.body.scope).toBe(
        "practices:read vacancies:read candidates:read applications:read applications:write recruitment-cases:read webhooks:read webhooks:write",
      );
      await auth.pool.query("DELETE FROM auth.clients WHERE id = $1", [first.clientId]);
      const recreated = await ensureDemoClient({ databaseUrl: auth.database.url, file });
      expect(recreated.created).toBe(true);
      expect(recreated.clientId).not.toBe(first.clientId);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
