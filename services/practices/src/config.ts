import {
  detectorEnvShape,
  env,
  installationVersion,
  legacyEnvShape,
  parseEnv,
  pgEnvShape,
  refineLeaderElection,
  relayEnvShape,
  serviceEnvShape,
  tokenEnvShape,
  z,
} from "@svc/config";
import { revocationFeedEnvShape } from "@svc/auth";
import { telemetryEnvShape } from "@svc/telemetry";

/** The only module of this service that reads the environment (a lint rule enforces it). */
export const SERVICE_NAME = "practices";
export const SERVICE_VERSION = installationVersion;

const shape = z
  .object({
    ...serviceEnvShape({ port: 8082, internalPort: 9482 }),
    ...tokenEnvShape,
    ...pgEnvShape,
    ...legacyEnvShape,
    ...revocationFeedEnvShape,
    ...telemetryEnvShape,
    ...relayEnvShape,
    ...detectorEnvShape,
    // The primary system's zone: its calendar date is the "today" of a secondary practice's
    // `active`, whatever zone the server or the database runs in.
    TIME_ZONE: env.timeZone("Europe/Brussels"),
    // How long a list total (COUNT over the whole union, a full scan) is reused for the same
    // filters and day; 0 counts on every request. Page contents are always read fresh.
    PRACTICE_TOTALS_CACHE_MS: env.int(5_000, 0, 300_000),
    // How long a list's page marks (where every 25th position of the union starts) are reused for
    // the same filters and day, so that a later page reads about what page 1 reads; 0: no marks,
    // every page is cut from the start of the union. Page contents are always read fresh.
    PRACTICE_PAGE_MARKS_CACHE_MS: env.int(5_000, 0, 300_000),
    // List totals and page marks grow with the union (docs/decisions/growth.md): they get their own
    // small pool, so they never hold more of the legacy database than this many connections, and
    // their own timeout, so a large list is counted rather than answered 503.
    PRACTICE_COUNT_POOL_MAX: env.int(2, 1, 20),
    PRACTICE_COUNT_TIMEOUT_MS: env.int(60_000, 100, 600_000),
    // Largest JSON body in production, sized for a CRM mirror bulk request of 1,000 accounts.
    CRM_MIRROR_BODY_LIMIT_BYTES: env.int(4 * 1024 * 1024, 64 * 1024, 64 * 1024 * 1024),
  })
  .superRefine(refineLeaderElection);

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
