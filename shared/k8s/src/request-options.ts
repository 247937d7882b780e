import { Observable } from "@kubernetes/client-node";
import type {
  ConfigurationOptions,
  ObservableMiddleware,
  RequestContext,
  ResponseContext,
} from "@kubernetes/client-node";

/**
 * Per-call options that bound one API request by `signal` (a timeout or a shutdown). The
 * generated ObjectParam APIs run Observable-style middleware (`pre` must return the library's
 * own Observable), and RequestContext#setSignal is the only way to hand fetch a signal.
 */
export function withSignal(signal: AbortSignal): ConfigurationOptions {
  const middleware: ObservableMiddleware = {
    pre: (ctx: RequestContext) => {
      ctx.setSignal(signal);
      return new Observable(Promise.resolve(ctx));
    },
    post: (res: ResponseContext) => new Observable(Promise.resolve(res)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: "append" };
}

/** withSignal for a timeout, optionally also ended by `parent`. */
export function withTimeout(ms: number, parent?: AbortSignal): ConfigurationOptions {
  const timeout = AbortSignal.timeout(Math.max(1, Math.round(ms)));
  return withSignal(parent ? AbortSignal.any([timeout, parent]) : timeout);
}
