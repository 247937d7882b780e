import type { ErrorRequestHandler, Response } from "express";
import { DomainError } from "@svc/errors";
import type { Logger } from "@svc/logging";
import { DEFAULT_REALM } from "@svc/auth";

/**
 * An error of the token endpoint, answered with RFC 6749 5.2's body ({ error, error_description },
 * spec 7.2) instead of the /v1 envelope.
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
  /** Spec 5.6: one response for unknown, wrong secret, revoked and expired: nothing in it may differ. */
  invalidClient: () =>
    new OAuthError(401, "invalid_client", "client authentication failed", {
      "WWW-Authenticate": BASIC_CHALLENGE,
    }),
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

/** RFC 6749 5.1: token responses, errors included, must not be cached. */
export function setNoStore(res: Response): void {
  res.set("Cache-Control", "no-store");
  res.set("Pragma", "no-cache");
}

export function sendOAuthError(res: Response, err: OAuthError): void {
  setNoStore(res);
  res.set(err.headers);
  res.status(err.status).json({ error: err.error, error_description: err.message });
}

/** Errors raised before or inside the token handler, in RFC 6749 terms. */
function toOAuthError(err: unknown): OAuthError | undefined {
  if (err instanceof OAuthError) return err;
  const type = (err as { type?: unknown } | undefined)?.type;
  if (type === "entity.too.large") return oauthErrors.payloadTooLarge();
  if (
    (typeof type === "string" && type.startsWith("entity.")) ||
    type === "encoding.unsupported" ||
    type === "charset.unsupported"
  ) {
    return oauthErrors.invalidRequest(
      "the request body could not be read; send application/x-www-form-urlencoded",
    );
  }
  if (err instanceof DomainError && err.status === 503)
    return oauthErrors.temporarilyUnavailable(5);
  if (err instanceof DomainError && err.status < 500)
    return oauthErrors.invalidRequest(err.message);
  // Other client errors of the body reader (e.g. a Content-Encoding whose data does not inflate: a zlib error with status 400).
  const status = (err as { status?: unknown } | undefined)?.status;
  if (
    !(err instanceof DomainError) &&
    typeof status === "number" &&
    status >= 400 &&
    status < 500
  ) {
    return oauthErrors.invalidRequest(
      "the request body could not be read; send application/x-www-form-urlencoded",
    );
  }
  return undefined;
}

/**
 * The token endpoint's one error middleware; unexpected errors are logged with their cause and
 * answered opaquely. `issuance` counts each answer by its error code (the outcome).
 */
export function oauthErrorHandler(
  logger: Logger,
  issuance?: { add(value: number, attributes: { outcome: string }): void },
): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (req.path !== "/oauth/token") return next(err);
    const known = toOAuthError(err);
    issuance?.add(1, { outcome: (known ?? oauthErrors.serverError()).error });
    if (!known) logger.error({ err, request_id: res.locals.requestId }, "token request failed");
    else if (known.status >= 500)
      logger.warn(
        { err: err instanceof OAuthError ? undefined : err, request_id: res.locals.requestId },
        known.message,
      );
    if (res.headersSent) return void req.socket.destroy();
    sendOAuthError(res, known ?? oauthErrors.serverError());
  };
}
