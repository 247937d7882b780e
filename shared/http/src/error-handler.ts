import type { ErrorRequestHandler, RequestHandler } from "express";
import type { Logger } from "@svc/logging";
import {
  DomainError,
  MalformedRequestError,
  NotFoundError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
} from "@svc/errors";
import { metaFor } from "./envelope.ts";

interface HttpishError {
  type?: string;
  status?: number;
  limit?: number;
}

/** Errors raised by express and body-parser before a handler runs, in the contract's terms. */
function fromFramework(err: unknown): DomainError | undefined {
  if (err instanceof DomainError) return err;
  const e = (err ?? {}) as HttpishError;
  switch (e.type) {
    case "entity.parse.failed":
      return new MalformedRequestError("request body is not valid JSON");
    case "entity.too.large":
      return new PayloadTooLargeError(e.limit ?? 0);
    case "encoding.unsupported":
    case "charset.unsupported":
      return new UnsupportedMediaTypeError("application/json encoded as UTF-8");
    default:
      break;
  }
  if (err instanceof URIError)
    return new MalformedRequestError("request path is not valid percent-encoding");
  if (typeof e.status === "number" && e.status >= 400 && e.status < 500)
    return new MalformedRequestError("malformed request");
  return undefined;
}

export function notFoundHandler(): RequestHandler {
  return (_req, _res, next) => next(new NotFoundError("no such endpoint"));
}

/**
 * The one place errors become responses (the contract's error envelope). Unknown errors are logged
 * with their cause and answered as an opaque 500 INTERNAL_ERROR; client errors are not logged as
 * errors.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const domain = fromFramework(err);
    if (!domain) {
      logger.error(
        { err, request_id: res.locals.requestId, method: req.method, path: req.path },
        "unhandled error",
      );
    } else if (domain.status >= 500) {
      logger.warn(
        { err: domain.cause ?? domain, code: domain.code, request_id: res.locals.requestId },
        domain.message,
      );
    }
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    const status = domain?.status ?? 500;
    const error: Record<string, unknown> = domain
      ? { code: domain.code, message: domain.message }
      : { code: "INTERNAL_ERROR", message: "an internal error occurred" };
    if (domain?.details) error.details = domain.details;
    if (domain) res.set(domain.headers);
    res.status(status).json({ success: false, error, meta: metaFor(res) });
  };
}
