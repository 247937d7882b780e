import { fileURLToPath } from "node:url";
import { processNamed } from "@svc/manifest";
import { parseReplicas, reachableOffset } from "./stack.ts";

// The local ports of the gateway (the base URL) and of auth (its JWKS), from the manifest.
const GATEWAY_PORT = processNamed("gateway").port!;
const AUTH_PORT = processNamed("auth").port!;

/**
 * The local stack's settings. Defaults are this machine's services at their standard addresses;
 * each can be overridden by the variable of the same name.
 */
export interface LocalStackConfig {
  pgUrl: string;
  mysqlUrl: string;
  natsUrl: string;
  legacyDatabase: string;
  baseUrl: string;
  rawLogs: boolean;
  /** Added to every local port (STACK_PORT_OFFSET); 0 gives the standard ports. */
  portOffset: number;
  /** Replicas per process (STACK_REPLICAS, e.g. `vacancies=2`); one of each by default. */
  replicas: ReadonlyMap<string, number>;
  /**
   * Where the demo client's credentials are kept (DEMO_CLIENT_FILE; a second stack, e.g. a test's,
   * uses its own).
   */
  demoClientFile: string;
  childEnv: NodeJS.ProcessEnv;
}

export function localStackConfig(env: NodeJS.ProcessEnv = process.env): LocalStackConfig {
  const pgUrl = env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/integration";
  const mysqlUrl = env.MYSQL_URL ?? "mysql://root@127.0.0.1:3306";
  const natsUrl = env.NATS_URL ?? "nats://127.0.0.1:4222";
  const legacyDatabase = env.LEGACY_DATABASE ?? "legacy_sandbox";
  const portOffset = Number(env.STACK_PORT_OFFSET ?? "0");
  if (!Number.isInteger(portOffset) || portOffset < 0 || portOffset > 50_000)
    throw new Error("STACK_PORT_OFFSET must be a whole number from 0 to 50000");
  const replicas = parseReplicas(env.STACK_REPLICAS);
  if (!reachableOffset(portOffset, replicas))
    throw new Error(
      `STACK_PORT_OFFSET=${portOffset} puts a process on a port fetch and browsers refuse (a Fetch "bad port", such as 10080); choose another`,
    );
  const baseUrl = env.PUBLIC_BASE_URL ?? `http://localhost:${GATEWAY_PORT + portOffset}`;
  const legacyUrl = new URL(mysqlUrl);
  legacyUrl.pathname = `/${legacyDatabase}`;
  return {
    pgUrl,
    mysqlUrl,
    natsUrl,
    legacyDatabase,
    baseUrl,
    rawLogs: env.RAW_LOGS === "true",
    portOffset,
    replicas,
    demoClientFile:
      env.DEMO_CLIENT_FILE ?? fileURLToPath(new URL("../.local/demo-client.json", import.meta.url)),
    // Every variable of the caller's environment reaches the processes (so any service setting,
    // e.g. WEBHOOK_RETRY_SCHEDULE_MS or OTEL_*, can be given to `npm start`); the stack's own
    // wiring below wins over it.
    childEnv: {
      ...env,
      LOG_LEVEL: env.LOG_LEVEL ?? "info",
      ENVIRONMENT: env.ENVIRONMENT ?? "sandbox",
      PUBLIC_BASE_URL: baseUrl,
      TOKEN_ISSUER: baseUrl,
      AUTH_JWKS_URL: `http://127.0.0.1:${AUTH_PORT + portOffset}/.well-known/jwks.json`,
      DATABASE_URL: pgUrl,
      MIGRATE_ON_START: "true",
      LEGACY_DATABASE_URL: legacyUrl.toString(),
      NATS_SERVERS: natsUrl,
      NATS_NAMESPACE: env.NATS_NAMESPACE ?? "svc",
      IDENTITY_PEPPER: env.IDENTITY_PEPPER ?? "local-development-pepper-not-a-secret-0123456789",
    },
  };
}

/** The migrations Job's one setting. */
export function migrateConfig(env: NodeJS.ProcessEnv = process.env): { databaseUrl: string } {
  const databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) throw new Error("DATABASE_URL is required");
  return { databaseUrl };
}
