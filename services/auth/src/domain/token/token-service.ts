import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import type { ClientRecord } from "../clients/client.ts";
import { canonicalScopes } from "../clients/client-scopes.ts";
import type { SigningKeys } from "../keys/signing-keys.ts";
import type { ClientAuthenticator } from "./client-authenticator.ts";
import { oauthErrors } from "./oauth-error.ts";
import type { TokenRequest } from "./token-request.ts";

/** The contract's access tokens live one hour. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;

/** RFC 6749 5.1 success body. */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
}

export interface TokenServiceDeps {
  authenticator: ClientAuthenticator;
  keys: SigningKeys;
  /** Scopes that exist in this environment. */
  environmentScopes: ReadonlySet<string>;
  issuer: string;
  audience: string;
  now?: () => number;
}

/** The requested scopes, each assigned to the client, or all of them when none is requested. */
export function grantedScopes(
  client: ClientRecord,
  requested: ReadonlyArray<string> | undefined,
  environmentScopes: ReadonlySet<string>,
): string[] {
  const assigned = new Set(client.scopes.filter((s) => environmentScopes.has(s)));
  if (requested === undefined) return canonicalScopes(assigned);
  for (const scope of requested) {
    if (!assigned.has(scope))
      throw oauthErrors.invalidScope(`the scope '${scope}' is not assigned to this client`);
  }
  return canonicalScopes(requested);
}

/** Issues RFC 9068 JWT access tokens for authenticated clients. */
export class TokenService {
  readonly #deps: TokenServiceDeps;
  readonly #now: () => number;

  constructor(deps: TokenServiceDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  async issue(
    request: TokenRequest,
    callerIp: string,
  ): Promise<{ clientId: string; response: TokenResponse }> {
    const client = await this.#deps.authenticator.authenticate(request.credentials, callerIp);
    const scopes = grantedScopes(client, request.scopes, this.#deps.environmentScopes);
    const scope = scopes.join(" ");
    const access_token = await this.#sign(client.id, scope);
    return {
      clientId: client.id,
      response: {
        access_token,
        token_type: "Bearer",
        expires_in: ACCESS_TOKEN_LIFETIME_SECONDS,
        scope,
      },
    };
  }

  /**
   * RFC 9068 2.2: typ at+jwt; iss, exp, aud, sub (= client_id, no user here), client_id, iat, jti;
   * plus scope.
   */
  #sign(clientId: string, scope: string): Promise<string> {
    const { keys, issuer, audience } = this.#deps;
    const issuedAt = Math.floor(this.#now() / 1000);
    return new SignJWT({ client_id: clientId, scope })
      .setProtectedHeader({ alg: keys.active.alg, typ: "at+jwt", kid: keys.active.kid })
      .setIssuer(issuer)
      .setSubject(clientId)
      .setAudience(audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ACCESS_TOKEN_LIFETIME_SECONDS)
      .setJti(randomUUID())
      .sign(keys.active.key);
  }
}
