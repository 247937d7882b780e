import { randomBytes } from "node:crypto";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { exportJWK, generateKeyPair, type JWK } from "jose";

/** A fresh private ES256 JWK with a kid that sorts by creation date (k20261122-3f9a1c). */
export async function generateSigningJwk(
  kid = `k${new Date().toISOString().slice(0, 10).replaceAll("-", "")}-${randomBytes(3).toString("hex")}`,
): Promise<JWK> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: "ES256", use: "sig" };
}

/**
 * One machine only (SIGNING_KEYS_DIR unset): creates the directory and a first active key when it
 * holds none, so `npm start` works out of the box and keeps its key across restarts (tokens stay
 * valid). Same layout as the Kubernetes secret, so the same loader and rotation steps apply.
 * Returns the kid it generated, if any.
 */
export async function ensureLocalSigningKeys(dir: string): Promise<string | undefined> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const existing = (await readdir(dir)).filter((name) => name.endsWith(".jwk.json"));
  if (existing.length > 0) return undefined;
  const jwk = await generateSigningJwk();
  const kid = String(jwk.kid);
  // "wx": never overwrite an existing file. (One auth process per machine creates the first key.)
  await writeFile(join(dir, `${kid}.active.jwk.json`), `${JSON.stringify(jwk, null, 2)}\n`, {
    mode: 0o600,
    flag: "wx",
  });
  return kid;
}
