import { describe, expect, it } from "vitest";
import {
  DependencyUnavailableError,
  DomainError,
  InsufficientScopeError,
  MalformedRequestError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  SourceUnavailableError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from "../src/index.ts";

/** What the error handler reads off an error to build the envelope. */
function shape(err: DomainError) {
  return {
    status: err.status,
    code: err.code,
    message: err.message,
    headers: err.headers,
    details: err.details,
  };
}

describe("DomainError", () => {
  it("carries status, code, message, headers, details and cause", () => {
    const cause = new Error("down");
    const err = new DomainError(409, "CONFLICT", "taken", {
      headers: { "X-A": "1" },
      details: [{ field: "name", message: "is taken" }],
      cause,
    });
    expect(shape(err)).toEqual({
      status: 409,
      code: "CONFLICT",
      message: "taken",
      headers: { "X-A": "1" },
      details: [{ field: "name", message: "is taken" }],
    });
    expect(err.cause).toBe(cause);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe("DomainError");
  });

  it("defaults to no headers, no details and no cause", () => {
    const err = new DomainError(409, "CONFLICT", "m");
    expect(err.headers).toEqual({});
    expect(err.details).toBeUndefined();
    expect("cause" in err).toBe(false);
  });

  it("names a subclass instance after its class", () => {
    expect(new NotFoundError().name).toBe("NotFoundError");
    expect(new ValidationError([])).toBeInstanceOf(DomainError);
  });
});

describe("the domain errors", () => {
  it("UnauthenticatedError: 401 with the WWW-Authenticate challenge given", () => {
    expect(shape(new UnauthenticatedError("no token", 'Bearer realm="api"'))).toEqual({
      status: 401,
      code: "UNAUTHENTICATED",
      message: "no token",
      headers: { "WWW-Authenticate": 'Bearer realm="api"' },
      details: undefined,
    });
  });

  it("InsufficientScopeError: 403 naming the scope, in the message and the challenge", () => {
    const err = new InsufficientScopeError("vacancies:read", "api");
    expect(err.status).toBe(403);
    expect(err.code).toBe("INSUFFICIENT_SCOPE");
    expect(err.scope).toBe("vacancies:read");
    expect(err.message).toContain("'vacancies:read'");
    expect(err.headers).toEqual({
      "WWW-Authenticate": 'Bearer realm="api", error="insufficient_scope", scope="vacancies:read"',
    });
    expect(err.details).toBeUndefined();
  });

  it("NotFoundError: 404 with a default message", () => {
    expect(shape(new NotFoundError())).toEqual({
      status: 404,
      code: "NOT_FOUND",
      message: "resource not found",
      headers: {},
      details: undefined,
    });
    expect(new NotFoundError("no such vacancy").message).toBe("no such vacancy");
  });

  it("ValidationError: 422 with every issue in details and named in the message", () => {
    const issues = [
      { field: "page", message: "must be at least 1" },
      { field: "body.email", message: "is required" },
    ];
    expect(shape(new ValidationError(issues))).toEqual({
      status: 422,
      code: "VALIDATION_ERROR",
      message: "invalid request: page: must be at least 1; body.email: is required",
      headers: {},
      details: issues,
    });
  });

  it("SourceUnavailableError: 503 LEGACY_SOURCE_UNAVAILABLE, Retry-After 5, keeps its cause", () => {
    const cause = new Error("ECONNREFUSED");
    const err = new SourceUnavailableError(cause);
    expect(err.status).toBe(503);
    expect(err.code).toBe("LEGACY_SOURCE_UNAVAILABLE");
    expect(err.headers).toEqual({ "Retry-After": "5" });
    expect(err.details).toBeUndefined();
    expect(err.cause).toBe(cause);
  });

  it("DependencyUnavailableError: 503 SERVICE_UNAVAILABLE naming the dependency", () => {
    const cause = new Error("timeout");
    const err = new DependencyUnavailableError("PostgreSQL", cause);
    expect(shape(err)).toEqual({
      status: 503,
      code: "SERVICE_UNAVAILABLE",
      message: "PostgreSQL is temporarily unavailable; retry later",
      headers: { "Retry-After": "5" },
      details: undefined,
    });
    expect(err.cause).toBe(cause);
  });

  it("MalformedRequestError: 400", () => {
    expect(shape(new MalformedRequestError("bad JSON"))).toEqual({
      status: 400,
      code: "MALFORMED_REQUEST",
      message: "bad JSON",
      headers: {},
      details: undefined,
    });
  });

  it("PayloadTooLargeError: 413 naming the limit", () => {
    expect(shape(new PayloadTooLargeError(1024))).toEqual({
      status: 413,
      code: "PAYLOAD_TOO_LARGE",
      message: "request body exceeds 1024 bytes",
      headers: {},
      details: undefined,
    });
  });

  it("UnsupportedMediaTypeError: 415 naming the expected type", () => {
    expect(shape(new UnsupportedMediaTypeError("application/json"))).toEqual({
      status: 415,
      code: "UNSUPPORTED_MEDIA_TYPE",
      message: "request body must be application/json",
      headers: {},
      details: undefined,
    });
  });

  it("MethodNotAllowedError: 405 with Allow listing the methods", () => {
    expect(shape(new MethodNotAllowedError(["GET", "HEAD"]))).toEqual({
      status: 405,
      code: "METHOD_NOT_ALLOWED",
      message: "method not allowed; use GET, HEAD",
      headers: { Allow: "GET, HEAD" },
      details: undefined,
    });
  });
});
