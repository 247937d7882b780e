import {
  env,
  installationVersion,
  natsEnvShape,
  parseEnv,
  pgEnvShape,
  relayEnvShape,
  serviceEnvShape,
  tokenEnvShape,
  z,
} from "@svc/config";
import { telemetryEnvShape } from "@svc/telemetry";

/** The only module of this service that reads the environment (a lint rule enforces it). */
export const SERVICE_NAME = "identity";
export const SERVICE_VERSION = installationVersion;

const MIN_PEPPER_BYTES = 32;

const identityShape = {
  /**
   * Secret key of the lookup hashes (HMAC-SHA256 of normalised e-mail addresses and phone numbers).
   * Required in every environment: a deployed sandbox also receives what clients type. Changing it
   * makes every stored lookup hash unmatchable (new applications then create new candidates).
   */
  IDENTITY_PEPPER: z.string().refine((v) => Buffer.byteLength(v, "utf8") >= MIN_PEPPER_BYTES, {
    message: `must be at least ${MIN_PEPPER_BYTES} bytes (e.g. \`openssl rand -base64 48\`)`,
  }),
  /** A `created_since` date (YYYY-MM-DD) means midnight in this zone. */
  TIME_ZONE: env.timeZone("Europe/Brussels"),
  /** How long POST /v1/applications waits for the vacancies service before answering 503. */
  VACANCY_LOOKUP_TIMEOUT_MS: env.int(2_000, 50, 30_000),
  /** How long an Idempotency-Key and its stored response are kept (at least 24 h). */
  IDEMPOTENCY_KEY_TTL_HOURS: env.int(24, 24, 24 * 30),
  /** How long a request waits for one with the same Idempotency-Key before answering 409. */
  IDEMPOTENCY_WAIT_MS: env.int(10_000, 100, 60_000),
};

const shape = z.object({
  ...serviceEnvShape({ port: 8084, internalPort: 9484 }),
  ...tokenEnvShape,
  ...pgEnvShape,
  ...natsEnvShape,
  ...telemetryEnvShape,
  ...relayEnvShape,
  ...identityShape,
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

/** What the operator commands (cli/) read: the database only (no pepper, no NATS, no tokens). */
export function loadCliConfig(source: Record<string, string | undefined> = process.env) {
  return parseEnv(z.object({ DATABASE_URL: pgEnvShape.DATABASE_URL }), source);
}
