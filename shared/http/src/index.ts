export * from "./envelope.ts";
export * from "./query.ts";
export { normaliseUuid, UUID_PARAMETER_SCHEMA, UUID_PATTERN, uuidParam } from "./uuid.ts";
export * from "./fields.ts";
export { createHttpApp, requestIdFor, type HttpAppOptions, type PlatformInfo } from "./app.ts";
export { errorHandler, notFoundHandler } from "./error-handler.ts";
export {
  DEFAULT_HTTP_LIMITS,
  httpLimits,
  listen,
  type HttpLimits,
  type RunningServer,
} from "./server.ts";
export { Shutdown } from "./shutdown.ts";
export {
  internalEndpoints,
  type ReadinessCheck,
  type InternalEndpointsOptions,
  type WarmUp,
  type WarmUpOutcome,
} from "./internal.ts";
export { requireJson } from "./body.ts";
export { TOKEN_PATH } from "./protocol-errors.ts";
export {
  serve,
  serveApi,
  serveInternal,
  type InternalServing,
  type ServeApiOptions,
  type ServeInternalOptions,
  type ServeOptions,
  type ServeWarmUp,
  type Serving,
} from "./serve.ts";
export {
  getJson,
  readApiWarmUp,
  warmUpRequests,
  type ReadApiWarmUpDeps,
  type ReadApiWarmUpOptions,
  type WarmUpRequestsOptions,
} from "./warm-up.ts";
export type { ErrorCode } from "@svc/errors";
