import { installationVersion, parseEnv, pgEnvShape, serviceEnvShape, tokenEnvShape, z } from "@svc/config";
import { telemetryEnvShape } from "@svc/telemetry";

/** The only module of this service that reads the environment (STYLE.md practice 3). */
export const SERVICE_NAME = "identity";
export const SERVICE_VERSION = installationVersion;

const shape = z.object({
  ...serviceEnvShape({ port: 8084, internalPort: 9484 }),
  ...tokenEnvShape,
  ...pgEnvShape,
  ...telemetryEnvShape,
});

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(source: Record<string, string | undefined> = process.env) {
  return parseEnv(shape, source);
}

/** Only what the telemetry preload needs, so a bad unrelated key is reported by main.ts, not here. */
export function loadTelemetryConfig(source: Record<string, string | undefined> = process.env) {
  return parseEnv(z.object({ ...telemetryEnvShape, ENVIRONMENT: serviceEnvShape({ port: 0, internalPort: 0 }).ENVIRONMENT }), source);
}
