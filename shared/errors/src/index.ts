export {
  DomainError,
  type FieldIssue,
  UnauthenticatedError,
  InsufficientScopeError,
  NotFoundError,
  ValidationError,
  SourceUnavailableError,
  DependencyUnavailableError,
  MalformedRequestError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  MethodNotAllowedError,
  RateLimitedError,
} from "./errors.ts";
export { ERROR_CODES, isErrorCode, type ErrorCode } from "./codes.ts";
