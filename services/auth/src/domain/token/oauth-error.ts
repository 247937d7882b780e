import { DEFAULT_REALM } from "@svc/auth";

/**
 * An error of the token endpoint, answered with RFC 6749 5.2's body ({ error, error_description })
 * instead of the /v1 envelope, as the contract requires.
 */
export class OAuthError extends Error {
  readonly status: number;
  readonly error: string;
  readonly headers: Readonly<Record<string, string>>;
  constructor(
    status: number,
    error: string,
    description: string,
    headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = "OAuthError";
    this.status = status;
    this.error = error;
    this.headers = headers;
  }
}

/** RFC 6749 2.3.1 + RFC 7617: the challenge for HTTP Basic client authentication. */
export const BASIC_CHALLENGE = `Basic realm="${DEFAULT_REALM}", charset="UTF-8"`;

export const oauthErrors = {
  invalidRequest: (description: string) => new OAuthError(400, "invalid_request", description),
  /** One response for unknown, wrong secret, revoked and expired: nothing in it may differ. */
  invalidClient: () =>
    new OAuthError(401, "invalid_client", "client authentication failed", {
      "WWW-Authenticate": BASIC_CHALLENGE,
    }),
  /**
   * Credentials in the form body, none in the header: never checked, so the hint says how to send
   * them and nothing about whether they are right.
   */
  credentialsInBody: () =>
    new OAuthError(
      401,
      "invalid_client",
      "client authentication failed: send client_id and client_secret with HTTP Basic (the Authorization header), not in the request body",
      { "WWW-Authenticate": BASIC_CHALLENGE },
    ),
  invalidScope: (description: string) => new OAuthError(400, "invalid_scope", description),
  unsupportedGrantType: () =>
    new OAuthError(400, "unsupported_grant_type", "only the client_credentials grant is supported"),
  methodNotAllowed: () =>
    new OAuthError(405, "invalid_request", "the token endpoint accepts POST only", {
      Allow: "POST",
    }),
  payloadTooLarge: () => new OAuthError(413, "invalid_request", "the request body is too large"),
  slowDown: (retryAfterSeconds: number) =>
    new OAuthError(429, "slow_down", "too many token requests; retry later", {
      "Retry-After": String(retryAfterSeconds),
    }),
  temporarilyUnavailable: (retryAfterSeconds: number) =>
    new OAuthError(
      503,
      "temporarily_unavailable",
      "the token service is temporarily unavailable; retry later",
      { "Retry-After": String(retryAfterSeconds) },
    ),
  serverError: () => new OAuthError(500, "server_error", "an internal error occurred"),
};
