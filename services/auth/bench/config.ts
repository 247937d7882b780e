import { parseEnv, tokenEnvShape, z } from "@svc/config";
import { revocationFeedEnvShape } from "@svc/auth";

/**
 * The benchmark's stand-in resource service (a /v1 API behind the shared verifier), configured by
 * the bench.
 */
export function loadResourceConfig(source: Record<string, string | undefined> = process.env) {
  return parseEnv(z.object({ ...tokenEnvShape, ...revocationFeedEnvShape }), source);
}
