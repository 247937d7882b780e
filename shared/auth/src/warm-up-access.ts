import { randomBytes, timingSafeEqual } from "node:crypto";
import type { AccessToken, TokenVerifier } from "./verifier.ts";

export interface WarmUpAccess {
  /** The API's verifier: the warm-up credential while it lasts, otherwise `verify` unchanged. */
  verify: TokenVerifier;
  /** `Bearer <random>`: known to this process only, accepted until `end()`. */
  authorization: string;
  /** From now on the credential is refused like any unknown token. */
  end(): void;
}

/**
 * A credential for the start-up warm-up's requests through the process's own API, so they run
 * the real request path (routing, scope checks, reads, serialisation) before the pod is ready.
 * It is 256 random bits made at start that never leave the process, grants only `scopes`, and is
 * refused once the warm-up has settled. Why: docs/decisions/cold-start-warm-up.md.
 */
export function warmUpAccess(verify: TokenVerifier, scopes: ReadonlyArray<string>): WarmUpAccess {
  const secret = Buffer.from(`Bearer ${randomBytes(32).toString("base64url")}`);
  let active = true;
  const token = (): AccessToken => {
    const now = Math.floor(Date.now() / 1000);
    return {
      clientId: "warm-up",
      scopes: new Set(scopes),
      jti: "warm-up",
      issuedAt: now,
      expiresAt: now + 60,
    };
  };
  return {
    authorization: secret.toString(),
    verify: async (authorization) => {
      if (active && authorization && Buffer.byteLength(authorization) === secret.length) {
        if (timingSafeEqual(Buffer.from(authorization), secret)) return token();
      }
      return verify(authorization);
    },
    end: () => void (active = false),
  };
}
