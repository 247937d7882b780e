import { readFileSync } from "node:fs";
import { z } from "zod";

export { z };

/** Raised at startup when the environment does not parse; lists every bad or missing key. */
export class ConfigError extends Error {
  readonly issues: ReadonlyArray<{ key: string; problem: string }>;
  constructor(issues: ReadonlyArray<{ key: string; problem: string }>) {
    super(`invalid configuration:\n${issues.map((i) => `  - ${i.key}: ${i.problem}`).join("\n")}`);
    this.name = "ConfigError";
    this.issues = issues;
  }
}

type DeepReadonly<T> = T extends (infer U)[]
  ? ReadonlyArray<DeepReadonly<U>>
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value as DeepReadonly<T>;
}

/**
 * Parses an environment (a plain string map) with a zod object schema whose keys are the
 * variable names, and returns a deeply frozen result. Every problem is collected before failing,
 * so one start-up attempt names every bad key.
 */
export function parseEnv<S extends z.ZodObject>(
  schema: S,
  env: Record<string, string | undefined>,
): DeepReadonly<z.output<S>> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => ({
      key: issue.path.map(String).join(".") || "(environment)",
      problem:
        issue.code === "invalid_type" && env[String(issue.path[0])] === undefined
          ? "is required but not set"
          : issue.message,
    }));
    throw new ConfigError(issues);
  }
  return deepFreeze(result.data);
}

/** Environment-variable field helpers: the environment only holds strings. */
export const env = {
  string: (fallback?: string) =>
    fallback === undefined ? z.string().min(1) : z.string().min(1).default(fallback),
  port: (fallback: number) => z.coerce.number().int().min(0).max(65_535).default(fallback),
  int: (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z.coerce.number().int().min(min).max(max).default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(["true", "false"], { message: "must be true or false" })
      .default(fallback ? "true" : "false")
      .transform((v) => v === "true"),
  url: (fallback?: string) => (fallback === undefined ? z.url() : z.url().default(fallback)),
  list: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .transform((v) =>
        v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      ),
  logLevel: () =>
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  environment: () => z.enum(["production", "sandbox"]).default("sandbox"),
  /** An IANA time zone the runtime knows (its ICU data), such as Europe/Brussels. */
  timeZone: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .refine(isTimeZone, { message: "must be an IANA time zone such as Europe/Brussels" }),
};

/** Whether the runtime knows `zone` as an IANA time zone. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const rootPackage = JSON.parse(
  readFileSync(new URL("../../../package.json", import.meta.url), "utf8"),
) as { version: string };

/**
 * The installation's semantic version: health `version`, version `build`, OpenAPI `info.version`.
 */
export const installationVersion: string = rootPackage.version;

/**
 * Every HTTP listener (@svc/http `listen`: each service's API and internal ports, the gateway):
 * how long a client may take to send a request's headers, and the whole request, before it is
 * answered 408 and cut; and how many connections one listener holds at most (more are refused).
 * The headers timeout is capped at the request timeout. docs/decisions/http-slow-clients.md.
 */
export const httpServerEnvShape = {
  HTTP_HEADERS_TIMEOUT_MS: env.int(10_000, 500, 300_000),
  HTTP_REQUEST_TIMEOUT_MS: env.int(30_000, 500, 600_000),
  HTTP_MAX_CONNECTIONS: env.int(1_000, 1, 100_000),
};

/**
 * Keys every service process reads. Defaults suit one machine (`npm start`); the chart sets them
 * all but the HTTP limits, whose defaults hold in a cluster too (chart `extraEnv` overrides them).
 */
export function serviceEnvShape(defaults: { port: number; internalPort: number }) {
  return {
    PORT: env.port(defaults.port),
    INTERNAL_PORT: env.port(defaults.internalPort),
    LOG_LEVEL: env.logLevel(),
    ENVIRONMENT: env.environment(),
    PUBLIC_BASE_URL: env.url("http://localhost:8080"),
    ...httpServerEnvShape,
    /** Longest wait for the start-up warm-up before readiness; 0 skips it (cold-start-warm-up.md). */
    WARM_UP_MAX_MS: env.int(10_000, 0, 60_000),
  };
}

/** Token verification against auth's published keys. */
export const tokenEnvShape = {
  AUTH_JWKS_URL: env.url("http://127.0.0.1:8081/.well-known/jwks.json"),
  TOKEN_ISSUER: env.string("http://localhost:8080"),
  TOKEN_AUDIENCE: env.string("integration-service"),
};

/** The service's own PostgreSQL store. */
export const pgEnvShape = {
  DATABASE_URL: env.url("postgres://postgres@127.0.0.1:5432/integration"),
  MIGRATE_ON_START: env.bool(false),
  DATABASE_POOL_MAX: env.int(10, 1, 200),
};

/** The legacy primary database, read-only. */
export const legacyEnvShape = {
  LEGACY_DATABASE_URL: env.url("mysql://root@127.0.0.1:3306/legacy_sandbox"),
  LEGACY_CONNECT_TIMEOUT_MS: env.int(2_000, 100, 60_000),
  LEGACY_QUERY_TIMEOUT_MS: env.int(5_000, 100, 120_000),
  LEGACY_POOL_MAX: env.int(10, 1, 200),
};

/** NATS JetStream. */
export const natsEnvShape = {
  NATS_SERVERS: env.list("nats://127.0.0.1:4222"),
  NATS_NAMESPACE: z
    .string()
    .regex(/^[a-z][a-z0-9]{0,15}$/, {
      message: "must be 1-16 lower-case letters or digits, starting with a letter",
    })
    .default("svc"),
  /** Authentication, at most one way: user and password, a token, a .creds file or an NKEY seed. */
  NATS_USER: z.string().min(1).optional(),
  NATS_PASSWORD: z.string().min(1).optional(),
  NATS_TOKEN: z.string().min(1).optional(),
  NATS_CREDS_FILE: z.string().min(1).optional(),
  NATS_NKEY_SEED_FILE: z.string().min(1).optional(),
  /** TLS: the CA that signed the servers' certificates, and a client certificate if required. */
  NATS_TLS_CA_FILE: z.string().min(1).optional(),
  NATS_TLS_CERT_FILE: z.string().min(1).optional(),
  NATS_TLS_KEY_FILE: z.string().min(1).optional(),
  /** Copies of every stream and KV bucket this installation creates: 1, 3 or 5. */
  NATS_REPLICAS: z.coerce
    .number()
    .int()
    .refine((n) => n === 1 || n === 3 || n === 5, { message: "must be 1, 3 or 5" })
    .default(1),
  /** JetStream placement of those streams: a cluster name and server tags. */
  NATS_PLACEMENT_CLUSTER: z.string().min(1).optional(),
  NATS_PLACEMENT_TAGS: env.list(""),
};

/** The outbox relay (`startRelay` of @svc/events): every service that writes events. */
export const relayEnvShape = {
  /** Pause once the outbox is drained: the most a pending event waits before it is published. */
  RELAY_POLL_MS: env.int(200, 10, 60_000),
};

/**
 * The API server a Lease elector or an operator talks to: unset, the pod's ServiceAccount; outside
 * a cluster, a kubeconfig file (its current context), as kubectl reads it.
 */
export const kubeConfigEnvShape = {
  KUBECONFIG: z.string().min(1).optional(),
};

/**
 * Change detection over the legacy source (`startDetector` of @svc/events) and the election of
 * the one replica that runs it. `LEADER_ELECTION`: `pg` (advisory lock in the service's own
 * PostgreSQL; works anywhere), `lease` (a Kubernetes Lease named after the service, in
 * POD_NAMESPACE, held as POD_NAME; needs RBAC on leases) or `solo` (no election: exactly one
 * replica by construction). `lease` requires POD_NAME and POD_NAMESPACE (refineLeaderElection).
 */
export const detectorEnvShape = {
  DETECTOR_INCREMENTAL_MS: env.int(250, 50, 3_600_000),
  DETECTOR_SWEEP_MS: env.int(900_000, 1_000, 7 * 86_400_000),
  DETECTOR_EMIT_CREATED_ON_BASELINE: env.bool(false),
  LEADER_ELECTION: z
    .enum(["pg", "lease", "solo"], { message: "must be pg, lease or solo" })
    .default("pg"),
  POD_NAME: z.string().min(1).optional(),
  POD_NAMESPACE: z.string().min(1).optional(),
  ...kubeConfigEnvShape,
};

/** `.superRefine` of a config with detectorEnvShape: a Lease needs the pod's name and namespace. */
export function refineLeaderElection(
  value: {
    LEADER_ELECTION: string;
    POD_NAME?: string | undefined;
    POD_NAMESPACE?: string | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  if (value.LEADER_ELECTION !== "lease") return;
  for (const key of ["POD_NAME", "POD_NAMESPACE"] as const) {
    if (value[key] === undefined)
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: "is required when LEADER_ELECTION is lease (downward API)",
      });
  }
}
