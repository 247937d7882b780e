import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeProtectedHeader, exportJWK, generateKeyPair, type JWK } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTokenVerifier, remoteKeys } from "@svc/auth";
import { fetchJson, silentLogger, startApp, type StartedApp } from "@svc/testing";
import { createApp } from "../src/app.ts";
import { createDummyHash } from "../src/domain/clients/credentials.ts";
import { ensureLocalSigningKeys, generateSigningJwk } from "../src/domain/keys/local-keys.ts";
import { loadSigningKeys, SigningKeyError } from "../src/domain/keys/signing-keys.ts";
import { startAuth, TEST_TOKEN_ISSUER, type AuthUnderTest } from "./support/harness.ts";

const dirs: string[] = [];
async function keyDir(files: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "auth-keys-test-"));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files))
    await writeFile(
      join(dir, name),
      typeof content === "string" ? content : JSON.stringify(content),
    );
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const publicOnly = (jwk: JWK): JWK => ({
  kty: jwk.kty,
  crv: jwk.crv,
  x: jwk.x,
  y: jwk.y,
  kid: jwk.kid,
});

describe("the signing-key directory: <kid>.active.jwk.json signs, <kid>.published.jwk.json is only published", () => {
  it("signs with the active key and publishes every key's public half, the active one first", async () => {
    const [k1, k2] = await Promise.all([generateSigningJwk("k1"), generateSigningJwk("k2")]);
    const keys = await loadSigningKeys(
      await keyDir({ "k2.published.jwk.json": k2, "k1.active.jwk.json": k1, "..data": "ignored" }),
    );
    expect(keys.active.kid).toBe("k1");
    expect(keys.active.alg).toBe("ES256");
    expect(keys.jwks.keys.map((k) => k.kid)).toEqual(["k1", "k2"]);
    for (const key of keys.jwks.keys)
      expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x", "y"]);
  });

  it("accepts a retired key whose private half was removed, and an Ed25519 (EdDSA) key", async () => {
    const retired = publicOnly(await generateSigningJwk("old"));
    const { privateKey } = await generateKeyPair("EdDSA", { extractable: true });
    const keys = await loadSigningKeys(
      await keyDir({
        "old.published.jwk.json": retired,
        "ed.active.jwk.json": await exportJWK(privateKey),
      }),
    );
    expect(keys.active).toMatchObject({ kid: "ed", alg: "EdDSA" });
    expect(keys.jwks.keys.map((k) => [k.kid, k.alg])).toEqual([
      ["ed", "EdDSA"],
      ["old", "ES256"],
    ]);
  });

  it.each<[string, () => Promise<Record<string, unknown>>, RegExp]>([
    [
      "no active key",
      async () => ({ "k1.published.jwk.json": await generateSigningJwk("k1") }),
      /exactly one \*\.active\.jwk\.json is required, found 0/,
    ],
    [
      "two active keys",
      async () => ({
        "k1.active.jwk.json": await generateSigningJwk("k1"),
        "k2.active.jwk.json": await generateSigningJwk("k2"),
      }),
      /found 2/,
    ],
    [
      "a misspelt state",
      async () => ({
        "k1.active.jwk.json": await generateSigningJwk("k1"),
        "k2.actve.jwk.json": await generateSigningJwk("k2"),
      }),
      /k2\.actve\.jwk\.json: name is not/,
    ],
    [
      "a public-only active key",
      async () => ({ "k1.active.jwk.json": publicOnly(await generateSigningJwk("k1")) }),
      /must be a private JWK/,
    ],
    [
      "a kid that differs from the file name",
      async () => ({ "k1.active.jwk.json": await generateSigningJwk("other") }),
      /differs from the file name/,
    ],
    [
      "an RSA key",
      async () => ({
        "k1.active.jwk.json": await exportJWK(
          (await generateKeyPair("RS256", { extractable: true })).privateKey,
        ),
      }),
      /only EC P-256/,
    ],
    ["a file that is not JSON", async () => ({ "k1.active.jwk.json": "{" }), /not JSON/],
  ])("refuses %s, naming the problem", async (_name, files, message) => {
    const dir = await keyDir(await files());
    await expect(loadSigningKeys(dir)).rejects.toBeInstanceOf(SigningKeyError);
    await expect(loadSigningKeys(dir)).rejects.toThrow(message);
  });

  it("refuses a directory it cannot read", async () => {
    await expect(loadSigningKeys("/nonexistent/keys")).rejects.toThrow(/cannot read the directory/);
  });
});

describe("local keys (SIGNING_KEYS_DIR unset)", () => {
  it("generates one active key on first start and keeps it across restarts", async () => {
    const dir = join(await keyDir({}), "keys");
    const kid = await ensureLocalSigningKeys(dir);
    expect(kid).toMatch(/^k\d{8}-[0-9a-f]{6}$/);
    expect(await ensureLocalSigningKeys(dir)).toBeUndefined();
    expect(await readdir(dir)).toEqual([`${kid}.active.jwk.json`]);
    expect((await stat(join(dir, `${kid}.active.jwk.json`))).mode & 0o777).toBe(0o600);
    expect((await loadSigningKeys(dir)).active.kid).toBe(kid);
  });
});

describe("key rotation with overlap, through the real token endpoint", () => {
  let auth: AuthUnderTest;
  let client: { id: string; secret: string };
  let dummyHash: string;
  beforeAll(async () => {
    auth = await startAuth();
    const created = await auth.manager.create({ name: "rotation", scopes: ["vacancies:read"] });
    client = { id: created.client.id, secret: created.secret };
    dummyHash = await createDummyHash();
  });
  afterAll(() => auth.close());

  /** One auth deployment with this key directory (a restart after changing the mounted secret). */
  async function deploy(files: Record<string, JWK>): Promise<StartedApp> {
    const keys = await loadSigningKeys(await keyDir(files));
    return startApp(
      createApp({ config: auth.config, logger: silentLogger(), pool: auth.pool, keys, dummyHash }),
    );
  }
  async function tokenFrom(app: StartedApp): Promise<string> {
    const res = await fetchJson(`${app.baseUrl}/oauth/token`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=client_credentials",
    });
    return String(res.body.access_token);
  }
  const verifierOf = (app: StartedApp) =>
    createTokenVerifier({
      keys: remoteKeys(`${app.baseUrl}/.well-known/jwks.json`),
      issuer: TEST_TOKEN_ISSUER,
      audience: "integration-service",
    });

  it("publishes the next key before it signs and keeps the old one until its tokens are gone", async () => {
    const [k1, k2] = await Promise.all([generateSigningJwk("k1"), generateSigningJwk("k2")]);
    const steps = {
      start: await deploy({ "k1.active.jwk.json": k1 }),
      announce: await deploy({ "k1.active.jwk.json": k1, "k2.published.jwk.json": k2 }),
      switch: await deploy({ "k1.published.jwk.json": k1, "k2.active.jwk.json": k2 }),
      retire: await deploy({ "k2.active.jwk.json": k2 }),
    };
    try {
      const oldToken = await tokenFrom(steps.start);
      expect(decodeProtectedHeader(await tokenFrom(steps.announce)).kid).toBe("k1");
      expect(
        (
          await fetchJson<{ keys: JWK[] }>(`${steps.announce.baseUrl}/.well-known/jwks.json`)
        ).body.keys.map((k) => k.kid),
      ).toEqual(["k1", "k2"]);
      expect(decodeProtectedHeader(await tokenFrom(steps.switch)).kid).toBe("k2");
      expect((await verifierOf(steps.switch)(`Bearer ${oldToken}`)).clientId).toBe(client.id);
      expect(
        (await verifierOf(steps.retire)(`Bearer ${await tokenFrom(steps.switch)}`)).clientId,
      ).toBe(client.id);
      await expect(verifierOf(steps.retire)(`Bearer ${oldToken}`)).rejects.toThrow(/unknown key/);
    } finally {
      await Promise.all(Object.values(steps).map((s) => s.close()));
    }
  });
});
