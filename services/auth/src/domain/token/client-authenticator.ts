import { stateOf, type ClientRecord } from "../clients/client.ts";
import { verifySecret } from "../clients/credentials.ts";
import type { ClientStore } from "../ports.ts";
import { GateFullError, type Argon2Gate } from "./argon2-gate.ts";
import { oauthErrors } from "./oauth-error.ts";
import type { ProofCache } from "./proof-cache.ts";
import type { RateLimiter } from "@svc/auth";
import type { ClientCredentials } from "./token-request.ts";

export interface ClientAuthenticatorDeps {
  store: ClientStore;
  proofs: ProofCache;
  gate: Argon2Gate;
  perIp: RateLimiter;
  perClient: RateLimiter;
  /** argon2id hash of a random secret: what an unknown client id is verified against. */
  dummyHash: string;
  now?: () => number;
}

// What a generated client id can look like; anything else cannot exist, so the database is not
// asked.
const CLIENT_ID_SHAPE = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Client authentication for the token endpoint. Unknown id, wrong secret, revoked and expired all
 * take the same path: one lookup, one argon2 verification (against a dummy hash when the id is
 * unknown), then the same invalid_client, so neither the answer nor its timing tells them apart. A
 * repeat with a recently verified secret skips argon2 (ProofCache); any other request pays argon2
 * only after the per-IP and per-client-id limits allow it.
 */
export class ClientAuthenticator {
  readonly #deps: ClientAuthenticatorDeps;
  readonly #now: () => number;

  constructor(deps: ClientAuthenticatorDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  async authenticate(credentials: ClientCredentials, callerIp: string): Promise<ClientRecord> {
    const { clientId, secret } = credentials;
    const { proofs, store, dummyHash } = this.#deps;
    const proofKey = proofs.keyFor(clientId, secret);
    const hadProof = proofs.has(proofKey);
    if (!hadProof) this.#limit(callerIp, clientId);
    const client = CLIENT_ID_SHAPE.test(clientId) ? await store.find(clientId) : undefined;
    const usable = client !== undefined && stateOf(client, this.#now()) === "active";
    if (hadProof && usable && proofs.holds(proofKey, client.id, client.secretHash)) return client;
    if (hadProof) {
      proofs.forget(proofKey);
      this.#limit(callerIp, clientId);
    }
    const hash = client?.secretHash ?? dummyHash;
    const matches = await this.#verify(`${proofKey}.${hash}`, hash, secret);
    if (!matches || !client || !usable) throw oauthErrors.invalidClient();
    proofs.remember(proofKey, client.id, client.secretHash);
    return client;
  }

  #limit(callerIp: string, clientId: string): void {
    const byIp = this.#deps.perIp.take(callerIp);
    if (!byIp.ok) throw oauthErrors.slowDown(byIp.retryAfterSeconds);
    // Keyed by the presented id, known or not, so a 429 says nothing about whether it exists.
    const byClient = this.#deps.perClient.take(clientId.slice(0, 128));
    if (!byClient.ok) throw oauthErrors.slowDown(byClient.retryAfterSeconds);
  }

  async #verify(key: string, hash: string, secret: string): Promise<boolean> {
    try {
      return await this.#deps.gate.run(key, () => verifySecret(hash, secret));
    } catch (err) {
      if (err instanceof GateFullError) throw oauthErrors.temporarilyUnavailable(1);
      throw err;
    }
  }
}
