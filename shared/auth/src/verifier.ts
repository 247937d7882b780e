import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import { DependencyUnavailableError, UnauthenticatedError } from "@svc/errors";

/** What a verified access token (RFC 9068) tells the API about its caller. */
export interface AccessToken {
  clientId: string;
  scopes: ReadonlySet<string>;
  jti: string;
  issuedAt: number;
  expiresAt: number;
}

/**
 * Revocation as seen locally (a watched JetStream KV bucket, auth issue): answers synchronously so
 * no request waits on auth. `unknown` means the revocation feed cannot be trusted right now.
 */
export interface RevocationView {
  status(token: AccessToken): "valid" | "revoked" | "unknown";
}

export interface VerifierOptions {
  /** Signing keys: auth's JWKS (remoteKeys) or a local set in tests. */
  keys: JWTVerifyGetKey;
  issuer: string;
  audience: string;
  /** Asymmetric algorithms only; HS* and `none` are never accepted. */
  algorithms?: string[];
  revocation?: RevocationView;
  realm?: string;
  clockToleranceSeconds?: number;
}

export const DEFAULT_REALM = "integration-service";
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export function bearerChallenge(
  realm: string,
  error?: { code: string; description: string },
): string {
  return error
    ? `Bearer realm="${realm}", error="${error.code}", error_description="${error.description}"`
    : `Bearer realm="${realm}"`;
}

/**
 * auth's published keys, fetched and cached by jose (refetched on an unknown kid, rate-limited).
 */
export function remoteKeys(
  jwksUrl: string,
  timeoutMs = 2_000,
): ReturnType<typeof createRemoteJWKSet> {
  return createRemoteJWKSet(new URL(jwksUrl), {
    timeoutDuration: timeoutMs,
    cooldownDuration: 30_000,
    cacheMaxAge: 10 * 60_000,
  });
}

function describeFailure(err: unknown): string {
  if (err instanceof errors.JWTExpired) return "the access token expired";
  if (err instanceof errors.JWTClaimValidationFailed)
    return `the access token's ${err.claim} claim is not acceptable`;
  if (err instanceof errors.JWKSNoMatchingKey)
    return "the access token was signed with an unknown key";
  return "the access token is invalid";
}

function isKeySourceFailure(err: unknown): boolean {
  if (err instanceof errors.JWKSTimeout) return true;
  return !(err instanceof errors.JOSEError);
}

function toAccessToken(payload: JWTPayload): AccessToken | undefined {
  const {
    client_id: clientId,
    scope,
    jti,
    iat,
    exp,
    sub,
  } = payload as JWTPayload & { client_id?: unknown; scope?: unknown };
  if (
    typeof clientId !== "string" ||
    clientId !== sub ||
    typeof scope !== "string" ||
    typeof jti !== "string"
  )
    return undefined;
  if (typeof iat !== "number" || typeof exp !== "number") return undefined;
  return {
    clientId,
    scopes: new Set(scope.split(" ").filter(Boolean)),
    jti,
    issuedAt: iat,
    expiresAt: exp,
  };
}

export type TokenVerifier = (authorization: string | undefined) => Promise<AccessToken>;

/**
 * Verifies `Authorization: Bearer <jwt>`; throws UnauthenticatedError (401) with an RFC 6750
 * challenge.
 */
export function createTokenVerifier(options: VerifierOptions): TokenVerifier {
  const realm = options.realm ?? DEFAULT_REALM;
  const invalid = (description: string) =>
    new UnauthenticatedError(
      description,
      bearerChallenge(realm, { code: "invalid_token", description }),
    );
  return async (authorization) => {
    if (authorization === undefined || authorization === "") {
      throw new UnauthenticatedError("a bearer access token is required", bearerChallenge(realm));
    }
    const match = BEARER.exec(authorization);
    if (!match?.[1]) throw invalid("the Authorization header is not a bearer token");
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(match[1], options.keys, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms: options.algorithms ?? ["ES256", "EdDSA"],
        typ: "at+jwt",
        requiredClaims: ["iss", "sub", "aud", "exp", "iat", "jti", "client_id", "scope"],
        clockTolerance: options.clockToleranceSeconds ?? 5,
      }));
    } catch (err) {
      if (isKeySourceFailure(err)) throw new DependencyUnavailableError("token verification", err);
      throw invalid(describeFailure(err));
    }
    const token = toAccessToken(payload);
    if (!token) throw invalid("the access token's claims are malformed");
    const revocation = options.revocation?.status(token) ?? "valid";
    if (revocation === "revoked") throw invalid("the access token was revoked");
    if (revocation === "unknown") throw new DependencyUnavailableError("token revocation status");
    return token;
  };
}
