import { hash } from "node:crypto";
import {
  createTokenVerifier,
  type AccessToken,
  type RevocationView,
  type TokenVerifier,
  type VerifierOptions,
} from "./verifier.ts";

export interface VerifiedTokenCacheOptions {
  /** Consulted on every cache hit, exactly as the verifier does (revocations stay immediate). */
  revocation?: RevocationView;
  /**
   * How long one verification is reused at most; bounds how long a key removed from the JWKS still
   * counts.
   */
  maxAgeMs?: number;
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  token: AccessToken;
  until: number;
}

/**
 * Clients reuse one access token for up to an hour, so most requests present a token this process
 * has already verified. A hit skips the signature check (the expensive part) but never the rest:
 * the entry ends at the token's `exp` (or `maxAgeMs`, whichever is first), the revocation view is
 * asked on every request, and anything but "valid" falls through to the full verifier, which
 * answers exactly as it would without the cache. Only verified tokens are stored, keyed by a
 * SHA-256 of the Authorization header (the tokens themselves are not kept), so garbage cannot
 * fill it; it is bounded by `maxEntries`.
 */
export function withVerifiedTokenCache(
  verify: TokenVerifier,
  options: VerifiedTokenCacheOptions = {},
): TokenVerifier {
  const entries = new Map<string, Entry>();
  const maxAgeMs = options.maxAgeMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  return async (authorization) => {
    if (authorization === undefined || authorization === "") return verify(authorization);
    // One-shot hash: no Hash object per request. Why: docs/decisions/verified-token-cache.md.
    const key = hash("sha256", authorization, "base64url");
    const hit = entries.get(key);
    if (hit && now() < hit.until && (options.revocation?.status(hit.token) ?? "valid") === "valid")
      return hit.token;
    if (hit) entries.delete(key);
    const token = await verify(authorization);
    const until = Math.min(now() + maxAgeMs, token.expiresAt * 1000);
    if (until > now()) {
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(key, { token, until });
    }
    return token;
  };
}

/** createTokenVerifier plus the verified-token cache, sharing its revocation view. */
export function createCachedTokenVerifier(
  options: VerifierOptions & { cache?: Omit<VerifiedTokenCacheOptions, "revocation"> },
): TokenVerifier {
  const { cache, ...verifierOptions } = options;
  return withVerifiedTokenCache(createTokenVerifier(verifierOptions), {
    ...cache,
    ...(options.revocation && { revocation: options.revocation }),
  });
}
