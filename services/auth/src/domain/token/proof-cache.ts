import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

interface Proof {
  clientId: string;
  /**
   * The stored hash the secret was verified against: a rotation changes it, so the proof stops
   * matching.
   */
  secretHash: string;
  expiresAt: number;
}

export interface ProofCacheOptions {
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
}

/**
 * "This secret verified against this client's current hash a moment ago", so a repeat token
 * request skips argon2. Keyed by an HMAC of (client id, presented secret) under a random key
 * that never leaves the process: neither secrets nor plain hashes of them sit in memory.
 * A proof only counts while the client's stored hash is the one it was made against (rotation
 * ends it) and the client is usable (revocation and expiry end it; checked by the caller on
 * the current database row). Revocations seen on the bucket drop a client's proofs at once.
 */
export class ProofCache {
  readonly #key = randomBytes(32);
  readonly #proofs = new Map<string, Proof>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: ProofCacheOptions) {
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  keyFor(clientId: string, secret: string): string {
    return createHmac("sha256", this.#key)
      .update(`${clientId.length}:${clientId}:${secret}`)
      .digest("base64url");
  }

  /**
   * Whether a live proof exists for this key (the caller still has to check it against the row).
   */
  has(key: string): boolean {
    const proof = this.#proofs.get(key);
    if (proof && proof.expiresAt > this.#now()) return true;
    if (proof) this.#proofs.delete(key);
    return false;
  }

  /** Whether the key holds a live proof for this client made against exactly this stored hash. */
  holds(key: string, clientId: string, secretHash: string): boolean {
    const proof = this.#proofs.get(key);
    if (!proof || proof.expiresAt <= this.#now() || proof.clientId !== clientId) return false;
    const a = Buffer.from(proof.secretHash);
    const b = Buffer.from(secretHash);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  remember(key: string, clientId: string, secretHash: string): void {
    if (this.#ttlMs <= 0) return;
    this.#proofs.delete(key);
    if (this.#proofs.size >= this.#maxEntries)
      this.#proofs.delete(this.#proofs.keys().next().value as string);
    this.#proofs.set(key, { clientId, secretHash, expiresAt: this.#now() + this.#ttlMs });
  }

  forget(key: string): void {
    this.#proofs.delete(key);
  }

  forgetClient(clientId: string): void {
    for (const [key, proof] of this.#proofs)
      if (proof.clientId === clientId) this.#proofs.delete(key);
  }
}
