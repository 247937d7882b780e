import { env, natsEnvShape, parseEnv, z } from "@svc/config";

/**
 * The keys the revocation feed reads: where NATS is, the namespace of the revocations bucket,
 * and how long a service may keep answering from an unconfirmed revocation list.
 * A service's config.ts spreads this shape; `loadRevocationFeedConfig` is for a main.ts whose
 * config.ts does not carry these keys (yet).
 */
export const revocationFeedEnvShape = {
  ...natsEnvShape,
  REVOCATION_MAX_STALENESS_MS: env.int(60_000, 1_000, 3_600_000),
};

export type RevocationFeedConfig = ReturnType<typeof loadRevocationFeedConfig>;

export function loadRevocationFeedConfig(source: Record<string, string | undefined> = process.env) {
  return parseEnv(z.object(revocationFeedEnvShape), source);
}
