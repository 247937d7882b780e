import {
  detectorEnvShape,
  env,
  installationVersion,
  legacyEnvShape,
  natsEnvShape,
  parseEnv,
  pgEnvShape,
  refineLeaderElection,
  relayEnvShape,
  serviceEnvShape,
  tokenEnvShape,
  z,
} from "@svc/config";
import { telemetryEnvShape } from "@svc/telemetry";

/** The only module of this service that reads the environment (a lint rule enforces it). */
export const SERVICE_NAME = "vacancies";
export const SERVICE_VERSION = installationVersion;

const shape = z
  .object({
    ...serviceEnvShape({ port: 8083, internalPort: 9483 }),
    ...tokenEnvShape,
    ...pgEnvShape,
    ...legacyEnvShape,
    ...natsEnvShape,
    ...telemetryEnvShape,
    ...relayEnvShape,
    ...detectorEnvShape,
    // The primary system's zone: its DATETIME columns hold wall-clock time there, and its calendar
    // date is the "today" of `published`, whatever zone the server or database runs in.
    TIME_ZONE: env.timeZone("Europe/Brussels"),
    // How long a list total (a COUNT over every matching vacancy) is reused for the same filters
    // and day; 0 counts on every request. Pages are always read fresh; a page that is not full has
    // an exact total regardless.
    VACANCY_TOTALS_CACHE_MS: env.int(5_000, 0, 300_000),
    // How long a list's page marks (where every 250th row of the list starts, see
    // source/mysql-vacancy-source.ts) are reused for pages past the first 5,000 rows; 0 sorts every
    // matching id for each such page instead.
    VACANCY_PAGE_MARKS_CACHE_MS: env.int(5_000, 0, 300_000),
    // List totals and page marks grow with the table (docs/decisions/growth.md): they get their own
    // small pool, so they never hold more of the legacy database than this many connections, and
    // their own timeout, so a large list is counted rather than answered 503.
    VACANCY_COUNT_POOL_MAX: env.int(2, 1, 20),
    VACANCY_COUNT_TIMEOUT_MS: env.int(60_000, 100, 600_000),
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
