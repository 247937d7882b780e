export * from "./verifier.ts";
export { requireScope, callerOf } from "./require-scope.ts";
export { SCOPES, scopesFor, type Scope } from "./scopes.ts";
export {
  REVOCATION_BUCKET_OPTIONS,
  clientIdOfKey,
  encodeRevocation,
  parseRevocation,
  revocationKey,
  sameRevocation,
  type ClientRevocation,
} from "./revocation-record.ts";
export {
  watchRevocations,
  type RevocationWatch,
  type RevocationWatchHealth,
  type RevocationWatchOptions,
} from "./revocation-watch.ts";
export {
  startRevocationFeed,
  type RevocationFeed,
  type RevocationFeedOptions,
} from "./revocation-feed.ts";
export {
  loadRevocationFeedConfig,
  revocationFeedEnvShape,
  type RevocationFeedConfig,
} from "./config.ts";
export {
  createCachedTokenVerifier,
  withVerifiedTokenCache,
  type VerifiedTokenCacheOptions,
} from "./verified-token-cache.ts";
export { warmUpAccess, type WarmUpAccess } from "./warm-up-access.ts";
export { RateLimiter, type RateLimiterOptions, type Take } from "./rate-limiter.ts";
