import type { ErrorRequestHandler, Response } from "express";
import { DomainError } from "@svc/errors";
import { TOKEN_PATH } from "@svc/http";
import type { Logger } from "@svc/logging";
import { OAuthError, oauthErrors } from "../domain/token/oauth-error.ts";

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
  // Other client errors of the body reader (e.g. a Content-Encoding whose data does not inflate: a
  // zlib error with status 400).
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
    if (req.path !== TOKEN_PATH) return next(err);
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
