import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { importJWK, type CryptoKey, type JSONWebKeySet, type JWK } from "jose";

/**
 * The signing-key directory (a Kubernetes Secret mounted as files, or .local/keys on one machine).
 * Each file is one JWK; its name says its state:
 *   <kid>.active.jwk.json     the one key that signs (private JWK), also published
 *   <kid>.published.jwk.json  published in the JWKS, never signs: a next key announced before it
 *                             signs, or a retired key kept until its last tokens expired (may be
 *                             a public-only JWK)
 * Dotfiles (Kubernetes' ..data links) are ignored; any other name is an error, so a typo in a
 * state cannot silently drop a key.
 */
const KEY_FILE = /^([A-Za-z0-9_-]{1,64})\.(active|published)\.jwk\.json$/;

export type SigningAlgorithm = "ES256" | "EdDSA";

export interface SigningKeys {
  active: { kid: string; alg: SigningAlgorithm; key: CryptoKey | Uint8Array };
  /** Public halves of every key in the directory, the active one first. */
  jwks: JSONWebKeySet;
}

export class SigningKeyError extends Error {
  constructor(dir: string, problems: string[]) {
    super(`signing keys in ${dir} are not usable:\n  - ${problems.join("\n  - ")}`);
    this.name = "SigningKeyError";
  }
}

interface KeyFile {
  kid: string;
  active: boolean;
  jwk: JWK;
  alg: SigningAlgorithm;
}

function algorithmOf(jwk: JWK): SigningAlgorithm | undefined {
  if (jwk.kty === "EC" && jwk.crv === "P-256") return "ES256";
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") return "EdDSA";
  return undefined;
}

/** Only the public members, whatever else the file holds. */
function publicJwk(file: KeyFile): JWK {
  const { kty, crv, x, y } = file.jwk;
  return { kty, crv, x, ...(y !== undefined && { y }), kid: file.kid, alg: file.alg, use: "sig" };
}

function parseKeyFile(name: string, text: string): KeyFile | string {
  const match = KEY_FILE.exec(name);
  if (!match) return `${name}: name is not <kid>.active.jwk.json or <kid>.published.jwk.json`;
  const [, kid = "", state] = match;
  let jwk: JWK;
  try {
    jwk = JSON.parse(text) as JWK;
  } catch {
    return `${name}: not JSON`;
  }
  const alg = algorithmOf(jwk);
  if (!alg) return `${name}: only EC P-256 (ES256) and OKP Ed25519 (EdDSA) keys are supported`;
  if (jwk.alg !== undefined && jwk.alg !== alg)
    return `${name}: alg ${jwk.alg} does not fit the key type (${alg})`;
  if (jwk.kid !== undefined && jwk.kid !== kid)
    return `${name}: kid ${jwk.kid} differs from the file name's ${kid}`;
  if (state === "active" && typeof jwk.d !== "string")
    return `${name}: an active key must be a private JWK`;
  return { kid, active: state === "active", jwk, alg };
}

async function readKeyFiles(dir: string): Promise<{ files: KeyFile[]; problems: string[] }> {
  const names = (await readdir(dir)).filter((n) => !n.startsWith(".")).sort();
  const files: KeyFile[] = [];
  const problems: string[] = [];
  for (const name of names) {
    const parsed = parseKeyFile(name, await readFile(join(dir, name), "utf8"));
    if (typeof parsed === "string") problems.push(parsed);
    else files.push(parsed);
  }
  return { files, problems };
}

/** Reads and checks the directory; throws SigningKeyError naming every problem. */
export async function loadSigningKeys(dir: string): Promise<SigningKeys> {
  let read: { files: KeyFile[]; problems: string[] };
  try {
    read = await readKeyFiles(dir);
  } catch (err) {
    throw new SigningKeyError(dir, [`cannot read the directory: ${(err as Error).message}`]);
  }
  const { files, problems } = read;
  const kids = files.map((f) => f.kid);
  for (const kid of new Set(kids))
    if (kids.filter((k) => k === kid).length > 1)
      problems.push(`kid ${kid} appears more than once`);
  const active = files.filter((f) => f.active);
  if (active.length !== 1)
    problems.push(`exactly one *.active.jwk.json is required, found ${active.length}`);
  const signer = active[0];
  if (problems.length > 0 || !signer) throw new SigningKeyError(dir, problems);
  const ordered = [signer, ...files.filter((f) => !f.active)];
  return {
    active: { kid: signer.kid, alg: signer.alg, key: await importJWK(signer.jwk, signer.alg) },
    jwks: { keys: ordered.map(publicJwk) },
  };
}
