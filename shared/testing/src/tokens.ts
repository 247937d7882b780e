import { randomUUID } from "node:crypto";
import {
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
} from "jose";

export const TEST_ISSUER = "https://auth.test.invalid";
export const TEST_AUDIENCE = "integration-service";

export interface MintOptions {
  clientId?: string;
  scope?: string;
  issuer?: string;
  audience?: string;
  typ?: string;
  kid?: string;
  /** Seconds relative to now. */
  issuedAt?: number;
  expiresIn?: number;
  notBefore?: number;
  omit?: string[];
}

export interface TestIssuer {
  jwks: JSONWebKeySet;
  keys: JWTVerifyGetKey;
  mint(options?: MintOptions): Promise<string>;
}

/**
 * A token issuer with a throw-away ES256 key, for services under test. The auth service is the real
 * issuer; this stands in so each service's tests do not need it running.
 */
export async function createTestIssuer(): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const kid = randomUUID();
  const jwks: JSONWebKeySet = {
    keys: [{ ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" }],
  };
  return {
    jwks,
    keys: createLocalJWKSet(jwks),
    async mint(o: MintOptions = {}) {
      const now = Math.floor(Date.now() / 1000);
      const clientId = o.clientId ?? "test-client";
      const claims: Record<string, unknown> = {
        client_id: clientId,
        scope: o.scope ?? "",
        jti: randomUUID(),
      };
      for (const key of o.omit ?? []) delete claims[key];
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", typ: o.typ ?? "at+jwt", kid: o.kid ?? kid })
        .setIssuedAt(now + (o.issuedAt ?? 0))
        .setExpirationTime(now + (o.issuedAt ?? 0) + (o.expiresIn ?? 3600));
      if (!o.omit?.includes("iss")) jwt.setIssuer(o.issuer ?? TEST_ISSUER);
      if (!o.omit?.includes("aud")) jwt.setAudience(o.audience ?? TEST_AUDIENCE);
      if (!o.omit?.includes("sub")) jwt.setSubject(clientId);
      if (o.notBefore !== undefined) jwt.setNotBefore(now + o.notBefore);
      return jwt.sign(privateKey);
    },
  };
}
