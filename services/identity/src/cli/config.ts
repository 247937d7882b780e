import { parseEnv, pgEnvShape, z } from "@svc/config";

/**
 * What the operator commands read: the database only (no pepper, no NATS, no tokens), and without
 * the service config's telemetry imports, so a command starts quickly.
 */
export function loadCliConfig(source: Record<string, string | undefined> = process.env) {
  return parseEnv(z.object({ DATABASE_URL: pgEnvShape.DATABASE_URL }), source);
}
