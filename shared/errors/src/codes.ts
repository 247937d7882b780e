/**
 * Every `error.code` the API answers, with its status and meaning: the one list. `DomainError`
 * takes only these codes (a new code is a compile error until it is listed here), the listener's
 * protocol answers and the gateway's use them too, and the OpenAPI document's error envelope
 * enumerates exactly these keys.
 */
export const ERROR_CODES = {
  MALFORMED_REQUEST: {
    status: 400,
    description:
      "The request cannot be read: the body is not valid JSON, the path is not valid percent-encoding, or the request is not valid HTTP/1.1.",
  },
  UNAUTHENTICATED: {
    status: 401,
    description: "No token, or an invalid, expired or revoked one (`WWW-Authenticate` says which).",
  },
  INSUFFICIENT_SCOPE: {
    status: 403,
    description:
      "A valid token without the scope this endpoint needs: a token requested with fewer scopes than the client holds can be requested again with this one; otherwise the client lacks it (ask the operator).",
  },
  CSRF_REJECTED: {
    status: 403,
    description:
      "A portal change without the session's `X-CSRF-Token`, or sent from another origin.",
  },
  NOT_FOUND: {
    status: 404,
    description: "The resource does not exist (or the route does not exist in this environment).",
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    description: "A known path with a method it does not take (`Allow` lists those it does).",
  },
  REQUEST_TIMEOUT: {
    status: 408,
    description:
      "The request's headers, or the whole request, were not received in time; send it again on a new connection.",
  },
  CONFLICT: {
    status: 409,
    description: "A state change that does not apply to the resource's current state.",
  },
  IDEMPOTENT_REQUEST_IN_PROGRESS: {
    status: 409,
    description:
      "A request with the same Idempotency-Key is still running after 10 s; retry after `Retry-After`.",
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    description: "The request body exceeds this endpoint's limit.",
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    description: "The endpoint takes a JSON body (`Content-Type: application/json`, UTF-8).",
  },
  VALIDATION_ERROR: {
    status: 422,
    description: "Invalid parameters, headers or body; `error.details` names each bad one.",
  },
  RATE_LIMITED: { status: 429, description: "Too many requests; retry after `Retry-After`." },
  REQUEST_HEADERS_TOO_LARGE: {
    status: 431,
    description: "The request's headers are too large together.",
  },
  INTERNAL_ERROR: {
    status: 500,
    description: "An unexpected error; opaque, logged with its cause.",
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    description:
      "One of the service's own dependencies (its database, NATS, the token keys, the service behind the gateway) cannot be reached; retry later.",
  },
  LEGACY_SOURCE_UNAVAILABLE: {
    status: 503,
    description:
      "A source system (the legacy primary database) is temporarily unreachable; retry later.",
  },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}
