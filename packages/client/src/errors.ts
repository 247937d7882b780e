/**
 * Errors the client throws: one class per `error.code` of the contract (all subclasses of
 * ApiError), TokenError for the token endpoint's OAuth errors.
 */
import type { ErrorCode } from "./generated/api.ts";

export type ErrorDetail = { field: string; message: string };

/** An error answer of the API: its status, code, message, request id and, if sent, details. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode | string;
  readonly requestId: string | null;
  readonly details: ReadonlyArray<ErrorDetail>;
  /** Seconds the answer asked to wait (`Retry-After`), or null. */
  readonly retryAfter: number | null;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    requestId: string | null;
    details?: ReadonlyArray<ErrorDetail>;
    retryAfter?: number | null;
  }) {
    super(init.message);
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.details = init.details ?? [];
    this.retryAfter = init.retryAfter ?? null;
  }
}

export class MalformedRequestError extends ApiError {}
export class UnauthenticatedError extends ApiError {}
export class InsufficientScopeError extends ApiError {}
export class CsrfRejectedError extends ApiError {}
export class NotFoundError extends ApiError {}
export class MethodNotAllowedError extends ApiError {}
export class ConflictError extends ApiError {}
export class IdempotentRequestInProgressError extends ApiError {}
export class PayloadTooLargeError extends ApiError {}
export class UnsupportedMediaTypeError extends ApiError {}
export class ValidationError extends ApiError {}
export class RequestTimeoutError extends ApiError {}
export class RateLimitedError extends ApiError {}
export class RequestHeadersTooLargeError extends ApiError {}
export class InternalError extends ApiError {}
export class ServiceUnavailableError extends ApiError {}
export class LegacySourceUnavailableError extends ApiError {}

/** The class of each code; the type makes a code added to the contract a compile error here. */
export const ERROR_CLASSES = {
  MALFORMED_REQUEST: MalformedRequestError,
  UNAUTHENTICATED: UnauthenticatedError,
  INSUFFICIENT_SCOPE: InsufficientScopeError,
  CSRF_REJECTED: CsrfRejectedError,
  NOT_FOUND: NotFoundError,
  METHOD_NOT_ALLOWED: MethodNotAllowedError,
  REQUEST_TIMEOUT: RequestTimeoutError,
  CONFLICT: ConflictError,
  IDEMPOTENT_REQUEST_IN_PROGRESS: IdempotentRequestInProgressError,
  PAYLOAD_TOO_LARGE: PayloadTooLargeError,
  UNSUPPORTED_MEDIA_TYPE: UnsupportedMediaTypeError,
  VALIDATION_ERROR: ValidationError,
  RATE_LIMITED: RateLimitedError,
  REQUEST_HEADERS_TOO_LARGE: RequestHeadersTooLargeError,
  INTERNAL_ERROR: InternalError,
  SERVICE_UNAVAILABLE: ServiceUnavailableError,
  LEGACY_SOURCE_UNAVAILABLE: LegacySourceUnavailableError,
} as const satisfies Record<ErrorCode, typeof ApiError>;

/** An error answer of POST /oauth/token (`{ error, error_description }`, RFC 6749). */
export class TokenError extends Error {
  readonly status: number;
  readonly error: string;
  readonly retryAfter: number | null;

  constructor(status: number, error: string, description: string, retryAfter: number | null) {
    super(`token request failed: ${status} ${error}: ${description}`);
    this.name = "TokenError";
    this.status = status;
    this.error = error;
    this.retryAfter = retryAfter;
  }
}

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date), or null. */
export function retryAfterSeconds(headers: Headers): number | null {
  const value = headers.get("retry-after");
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

type ErrorBody = { error?: { code?: unknown; message?: unknown; details?: unknown } };

/** The ApiError subclass for an error answer (ApiError itself for a code the contract lacks). */
export function apiErrorFrom(
  response: Response,
  body: unknown,
  requestId: string | null,
): ApiError {
  const error = (body as ErrorBody | null)?.error;
  const code = typeof error?.code === "string" ? error.code : `HTTP_${response.status}`;
  const Class: typeof ApiError = ERROR_CLASSES[code as ErrorCode] ?? ApiError;
  return new Class({
    status: response.status,
    code,
    message: typeof error?.message === "string" ? error.message : response.statusText,
    requestId,
    details: Array.isArray(error?.details) ? (error.details as ErrorDetail[]) : [],
    retryAfter: retryAfterSeconds(response.headers),
  });
}
