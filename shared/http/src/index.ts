export * from "./envelope.ts";
export * from "./query.ts";
export { createHttpApp, type HttpAppOptions, type PlatformInfo } from "./app.ts";
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
export {
  serve,
  closeInternalLast,
  exitOnStartupError,
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
