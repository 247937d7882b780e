import { fileURLToPath } from "node:url";
import {
  env,
  installationVersion,
  parseEnv,
  pgEnvShape,
  serviceEnvShape,
  tokenEnvShape,
  z,
} from "@svc/config";
import { revocationFeedEnvShape } from "@svc/auth";
import { telemetryEnvShape } from "@svc/telemetry";

/** The only module of this service that reads the environment (a lint rule enforces it). */
export const SERVICE_NAME = "auth";
export const SERVICE_VERSION = installationVersion;

/**
 * Where keys are generated and kept on one machine when SIGNING_KEYS_DIR is not set (gitignored).
 */
export const LOCAL_SIGNING_KEYS_DIR = fileURLToPath(
  new URL("../../../.local/keys", import.meta.url),
);

const shape = z.object({
  ...serviceEnvShape({ port: 8081, internalPort: 9481 }),
  ...pgEnvShape,
  ...revocationFeedEnvShape,
  ...telemetryEnvShape,
  TOKEN_ISSUER: tokenEnvShape.TOKEN_ISSUER,
  TOKEN_AUDIENCE: tokenEnvShape.TOKEN_AUDIENCE,
  // Mounted secret directory of private JWK files (Kubernetes); unset: generated under .local/keys.
  SIGNING_KEYS_DIR: z.string().min(1).optional(),
  // argon2id verifications running at once, and how many more may wait; beyond that: 503.
  ARGON2_MAX_CONCURRENT: env.int(2, 1, 64),
  ARGON2_MAX_QUEUE: env.int(32, 0, 10_000),
  // Token requests that need an argon2 verification, per caller IP and per presented client id.
  TOKEN_RATE_IP_BURST: env.int(20, 1, 100_000),
  TOKEN_RATE_IP_PER_MINUTE: env.int(120, 1, 6_000_000),
  TOKEN_RATE_CLIENT_BURST: env.int(10, 1, 100_000),
  TOKEN_RATE_CLIENT_PER_MINUTE: env.int(30, 1, 6_000_000),
  // How long a verified secret is remembered (in memory, keyed hash); 0 disables it.
  TOKEN_PROOF_TTL_MS: env.int(300_000, 0, 3_600_000),
  // Proxies in front of auth whose X-Forwarded-For is trusted (the ingress or the local gateway).
  TRUST_PROXY_HOPS: env.int(1, 0, 10),
  // How often auth re-publishes revocations and expiries from its database to the bucket.
  REVOCATION_RECONCILE_INTERVAL_MS: env.int(60_000, 1_000, 3_600_000),
});

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(source: Record<string, string | undefined> = process.env) {
  return parseEnv(shape, source);
}

/** Only what the telemetry preload needs: a bad unrelated key is reported by main.ts, not here. */
export function loadTelemetryConfig(source: Record<string, string | undefined> = process.env) {
  return parseEnv(
    z.object({
      ...telemetryEnvShape,
      ENVIRONMENT: serviceEnvShape({ port: 0, internalPort: 0 }).ENVIRONMENT,
    }),
    source,
  );
}
