import type { ErrorCode } from "./codes.ts";

/**
 * The small set of domain errors. Handlers throw these; exactly one middleware (@svc/http's
 * errorHandler) turns them into the contract's error envelope. Codes beyond the contract's five
 * are our reading where it is silent (README.md, "Errors").
 */
export interface FieldIssue {
  /** The parameter, header or body field (dotted path) that is wrong. */
  field: string;
  message: string;
}

export class DomainError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly headers: Readonly<Record<string, string>>;
  readonly details: ReadonlyArray<FieldIssue> | undefined;
  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    extra: { headers?: Record<string, string>; details?: FieldIssue[]; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.headers = extra.headers ?? {};
    this.details = extra.details;
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(message: string, wwwAuthenticate: string) {
    super(401, "UNAUTHENTICATED", message, { headers: { "WWW-Authenticate": wwwAuthenticate } });
  }
}

export class InsufficientScopeError extends DomainError {
  readonly scope: string;
  constructor(scope: string, realm: string) {
    super(
      403,
      "INSUFFICIENT_SCOPE",
      `this token lacks the required scope '${scope}'; if your client holds it, request a new token without a scope parameter or with this scope, otherwise ask your operator to grant it`,
      {
        headers: {
          "WWW-Authenticate": `Bearer realm="${realm}", error="insufficient_scope", scope="${scope}"`,
        },
      },
    );
    this.scope = scope;
  }
}

export class NotFoundError extends DomainError {
  constructor(message = "resource not found") {
    super(404, "NOT_FOUND", message);
  }
}

export class ValidationError extends DomainError {
  constructor(issues: FieldIssue[]) {
    const named = issues.map((i) => `${i.field}: ${i.message}`).join("; ");
    super(422, "VALIDATION_ERROR", `invalid request: ${named}`, { details: issues });
  }
}

/** A legacy source (the primary MySQL database) cannot be reached in time. */
export class SourceUnavailableError extends DomainError {
  constructor(cause?: unknown) {
    super(
      503,
      "LEGACY_SOURCE_UNAVAILABLE",
      "a source system is temporarily unreachable; retry later",
      { headers: { "Retry-After": "5" }, cause },
    );
  }
}

/** One of our own dependencies (PostgreSQL, NATS, another service) cannot be reached in time. */
export class DependencyUnavailableError extends DomainError {
  constructor(what: string, cause?: unknown) {
    super(503, "SERVICE_UNAVAILABLE", `${what} is temporarily unavailable; retry later`, {
      headers: { "Retry-After": "5" },
      cause,
    });
  }
}

export class MalformedRequestError extends DomainError {
  constructor(message: string) {
    super(400, "MALFORMED_REQUEST", message);
  }
}

export class PayloadTooLargeError extends DomainError {
  constructor(limitBytes: number) {
    super(413, "PAYLOAD_TOO_LARGE", `request body exceeds ${limitBytes} bytes`);
  }
}

export class UnsupportedMediaTypeError extends DomainError {
  constructor(expected: string) {
    super(415, "UNSUPPORTED_MEDIA_TYPE", `request body must be ${expected}`);
  }
}

export class MethodNotAllowedError extends DomainError {
  constructor(allowed: string[]) {
    super(405, "METHOD_NOT_ALLOWED", `method not allowed; use ${allowed.join(", ")}`, {
      headers: { Allow: allowed.join(", ") },
    });
  }
}

export class RateLimitedError extends DomainError {
  constructor(retryAfterSeconds: number) {
    super(429, "RATE_LIMITED", "too many requests; retry later", {
      headers: { "Retry-After": String(retryAfterSeconds) },
    });
  }
}
