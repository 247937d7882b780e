import { readFileSync } from "node:fs";
import {
  env,
  installationVersion,
  kubeConfigEnvShape,
  natsEnvShape,
  parseEnv,
  pgEnvShape,
  serviceEnvShape,
  tokenEnvShape,
  z,
} from "@svc/config";
import { telemetryEnvShape } from "@svc/telemetry";
import { isLoopbackUrl } from "./domain/url-policy.ts";

/** The only module of this service that reads the environment. */
export const SERVICE_NAME = "webhooks";
export const SERVICE_VERSION = installationVersion;

/**
 * The contract's retry schedule: waits after failed attempts 1..5 (+1 min, +5 min, +15 min, +1 h,
 * +6 h).
 */
export const SPEC_RETRY_SCHEDULE_MS = [60_000, 300_000, 900_000, 3_600_000, 21_600_000] as const;

/**
 * A development-only key so `npm start` works without setup. It is public (it is in this file),
 * so it is refused in production, where WEBHOOK_SECRET_KEY must be set.
 */
const DEVELOPMENT_SECRET_KEY = "ZGV2LW9ubHktd2ViaG9vay1zZWNyZXQta2V5LTAwMDE=";

const secretKey = z
  .string()
  .optional()
  .transform((value, ctx) => {
    const base64 = value ?? DEVELOPMENT_SECRET_KEY;
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || Buffer.from(base64, "base64").length !== 32) {
      ctx.addIssue({
        code: "custom",
        message: "must be 32 bytes, base64-encoded (openssl rand -base64 32)",
      });
      return z.NEVER;
    }
    // Kept as text: the parsed config is deep-frozen, and a Buffer cannot be frozen.
    return { base64, isDevelopmentKey: value === undefined };
  });

const retrySchedule = z
  .string()
  .default(SPEC_RETRY_SCHEDULE_MS.join(","))
  .transform((value, ctx) => {
    const parts = value.split(",").map((s) => s.trim());
    const ms = parts.map(Number);
    if (
      parts.length < 1 ||
      parts.length > 20 ||
      ms.some((n, i) => parts[i] === "" || !Number.isInteger(n) || n < 0 || n > 7 * 86_400_000)
    ) {
      ctx.addIssue({
        code: "custom",
        message: "must be 1..20 comma-separated whole milliseconds (each 0..7 days)",
      });
      return z.NEVER;
    }
    return ms;
  });

/**
 * The outbound URL guard. WEBHOOK_ALLOW_LOOPBACK: subscriber URLs on this machine's loopback
 * interface (http or https), for the local stack only (refused below); the extra CA: tests only.
 */
const guardShape = {
  WEBHOOK_ALLOW_LOOPBACK: env.bool(false),
  WEBHOOK_EXTRA_CA_FILE: z.string().min(1).optional(),
  WEBHOOK_DNS_TIMEOUT_MS: env.int(2_000, 100, 30_000),
};

/** Both processes: the API serves the feed's window, the dispatcher's retention prunes past it. */
const eventsFeedShape = {
  /**
   * How long an event stays in the events feed (GET /v1/events); retention then deletes it unless
   * a delivery still references it.
   */
  WEBHOOK_EVENTS_RETENTION_DAYS: env.int(30, 1, 3_650),
};

const secretShape = {
  WEBHOOK_SECRET_KEY: secretKey,
  /** How long the previous secret still signs after a rotation (documented: 24 h). */
  WEBHOOK_SECRET_ROTATION_OVERLAP_MS: env.int(86_400_000, 0, 30 * 86_400_000),
};

/** Read by both: the dispatcher deletes by it, the API bounds bulk recovery's window by it. */
const retentionShape = {
  /**
   * Retention (the contract names no period; ours): succeeded, failed and dead deliveries with
   * their attempts are deleted this many days after they finished, then events no delivery
   * references and older than WEBHOOK_EVENTS_RETENTION_DAYS. Until then a failed or dead
   * delivery can be redelivered. 0 keeps everything.
   */
  WEBHOOK_RETENTION_DAYS: env.int(30, 0, 3_650),
};

/**
 * Development-only settings stop the process outside their place: loopback receivers only on a
 * machine of one's own (the installation's PUBLIC_BASE_URL on loopback, as `npm start` has it;
 * never in production, never in a sandbox or any installation others reach), the extra CA and the
 * development secret key never in production.
 */
function refuseDevelopmentSettings(
  value: {
    ENVIRONMENT: string;
    PUBLIC_BASE_URL: string;
    WEBHOOK_ALLOW_LOOPBACK: boolean;
    WEBHOOK_EXTRA_CA_FILE?: string | undefined;
    WEBHOOK_SECRET_KEY: { isDevelopmentKey: boolean };
  },
  ctx: z.RefinementCtx,
): void {
  const refuse = (key: string, message: string) =>
    ctx.addIssue({ code: "custom", path: [key], message });
  if (value.WEBHOOK_ALLOW_LOOPBACK && value.ENVIRONMENT === "production")
    refuse("WEBHOOK_ALLOW_LOOPBACK", "is for the local stack only and is refused in production");
  else if (value.WEBHOOK_ALLOW_LOOPBACK && !isLoopbackUrl(value.PUBLIC_BASE_URL))
    refuse(
      "WEBHOOK_ALLOW_LOOPBACK",
      "is for the local stack only: refused where PUBLIC_BASE_URL is not on this machine's loopback (a sandbox or any installation others reach)",
    );
  if (value.ENVIRONMENT !== "production") return;
  if (value.WEBHOOK_EXTRA_CA_FILE !== undefined)
    refuse("WEBHOOK_EXTRA_CA_FILE", "is a test-only setting and is refused in production");
  if (value.WEBHOOK_SECRET_KEY.isDevelopmentKey)
    refuse("WEBHOOK_SECRET_KEY", "is required in production");
}

/** The subscriber portal (docs/decisions/portal-sessions.md); the API process serves it. */
const portalShape = {
  /** The longest a portal link and its session live; `ttl_seconds` may ask for less. */
  WEBHOOK_PORTAL_SESSION_MAX_TTL_SECONDS: env.int(3_600, 60, 3_600),
  /** Links one client may create at once, then WEBHOOK_PORTAL_SESSIONS_PER_MINUTE a minute. */
  WEBHOOK_PORTAL_SESSIONS_BURST: env.int(10, 1, 1_000),
  WEBHOOK_PORTAL_SESSIONS_PER_MINUTE: env.int(30, 1, 6_000),
  /** Changes (every method but GET) one portal session may make a minute, after a burst of 20. */
  WEBHOOK_PORTAL_ACTIONS_PER_MINUTE: env.int(60, 1, 6_000),
  /** Reads one portal session may make a minute, after a burst of 120 (the log polls). */
  WEBHOOK_PORTAL_READS_PER_MINUTE: env.int(600, 1, 60_000),
  /** The portal's built files (packages/portal/dist); unset: found beside the code, if built. */
  WEBHOOK_PORTAL_DIR: z.string().min(1).optional(),
};

const apiShape = z
  .object({
    ...portalShape,
    ...serviceEnvShape({ port: 8085, internalPort: 9485 }),
    ...tokenEnvShape,
    ...pgEnvShape,
    ...natsEnvShape,
    ...telemetryEnvShape,
    ...guardShape,
    ...secretShape,
    ...retentionShape,
    ...eventsFeedShape,
  })
  .superRefine(refuseDevelopmentSettings);

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(source: Record<string, string | undefined> = process.env) {
  return parseEnv(apiShape, source);
}

/**
 * Only what the telemetry preload needs, so a bad unrelated key is reported by main.ts, not here.
 */
export function loadTelemetryConfig(source: Record<string, string | undefined> = process.env) {
  return parseEnv(
    z.object({
      ...telemetryEnvShape,
      ENVIRONMENT: serviceEnvShape({ port: 0, internalPort: 0 }).ENVIRONMENT,
    }),
    source,
  );
}

const dispatcherShape = z
  .object({
    ...serviceEnvShape({ port: 0, internalPort: 9486 }),
    ...pgEnvShape,
    // Attempts read and write the store around every POST; batched, but more than the API's 10:
    // 16 fan-outs + 4 + 4 attempt batches at once, plus one session per elected duty (the
    // retention job, the operator) held for as long as this replica leads.
    DATABASE_POOL_MAX: env.int(26, 1, 200),
    ...natsEnvShape,
    ...telemetryEnvShape,
    ...guardShape,
    ...secretShape,
    ...eventsFeedShape,
    /**
     * Waits after failed attempts 1..n; attempts per delivery = entries + 1 (the contract's: 5
     * entries, 6 attempts).
     */
    WEBHOOK_RETRY_SCHEDULE_MS: retrySchedule,
    /** Whole attempt: connect, TLS, request, response headers and the capped body. */
    WEBHOOK_ATTEMPT_TIMEOUT_MS: env.int(10_000, 100, 120_000),
    /** Response bytes read at most; the stored sample is shorter still. */
    WEBHOOK_RESPONSE_READ_CAP_BYTES: env.int(4_096, 0, 65_536),
    WEBHOOK_DELIVERY_CONCURRENCY: env.int(128, 1, 1_024),
    /**
     * Attempts to one subscription running at once in one dispatcher (a subscriber's rate is at
     * most this / its latency); half as many more may wait 250 ms, the rest go back to the stream
     * for the expected wait (in-flight-caps.ts), at most WEBHOOK_SUBSCRIPTION_MAX_DEFER_MS.
     * Neither counts as an attempt.
     */
    WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: env.int(16, 1, 1_024),
    WEBHOOK_SUBSCRIPTION_MAX_DEFER_MS: env.int(60_000, 100, 3_600_000),
    /**
     * The deliveries consumer's ack wait: a dispatcher that died mid-attempt has its deliveries
     * redelivered to another within this. A running attempt marks its message in progress every
     * third of it, so it may be shorter than the attempt timeout
     * (docs/decisions/webhook-dispatcher-bounds.md).
     */
    WEBHOOK_DELIVERY_ACK_WAIT_MS: env.int(10_000, 1_000, 3_600_000),
    WEBHOOK_FANOUT_CONCURRENCY: env.int(16, 1, 256),
    WEBHOOK_FANOUT_ACK_WAIT_MS: env.int(30_000, 1_000, 3_600_000),
    /**
     * Deliveries recorded but not yet queued (a crash between the two) are queued after this age.
     */
    WEBHOOK_REQUEUE_SWEEP_MS: env.int(30_000, 100, 3_600_000),
    ...retentionShape,
    /** How often the elected dispatcher runs a retention pass. */
    WEBHOOK_RETENTION_SWEEP_MS: env.int(3_600_000, 1_000, 7 * 86_400_000),
    /** Rows per delete statement (bounded lock time). */
    WEBHOOK_RETENTION_BATCH_SIZE: env.int(500, 1, 10_000),
    /**
     * A subscription whose attempts have all failed for this long, with no success in that time,
     * is disabled (`endpoint_failing`); 5 days as Svix. 0 never disables.
     */
    WEBHOOK_AUTO_DISABLE_AFTER_MS: env.int(5 * 86_400_000, 0, 365 * 86_400_000),
    /** How often the elected dispatcher looks for such subscriptions. */
    WEBHOOK_AUTO_DISABLE_CHECK_MS: env.int(60_000, 100, 3_600_000),
    /**
     * Run the WebhookSubscription controller (on the elected leader only); the chart turns it on.
     */
    OPERATOR_ENABLED: env.bool(false),
    /**
     * A namespace that holds only the signing Secrets of WebhookSubscriptions (the dispatcher's
     * Secret rights are then confined to it); unset: the resources' own namespace.
     */
    OPERATOR_SECRET_NAMESPACE: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, "must be a namespace name (RFC 1123 label)")
      .optional(),
    /**
     * Only the WebhookSubscriptions this label selector matches (`key=value`, `key!=value`,
     * comma-separated); unset: every one in POD_NAMESPACE. Two releases in one namespace each set
     * their own.
     */
    OPERATOR_LABEL_SELECTOR: z
      .string()
      .regex(
        /^[A-Za-z0-9._/-]+(==?|!=)[A-Za-z0-9._-]*(,[A-Za-z0-9._/-]+(==?|!=)[A-Za-z0-9._-]*)*$/,
        "must be a label selector: key=value or key!=value, comma-separated",
      )
      .optional(),
    /**
     * How the one replica that runs retention and the operator is elected (one election,
     * LEADER_ELECTION_NAME): `lease` (a Kubernetes Lease in POD_NAMESPACE, held as POD_NAME; the
     * chart) or `pg` (an advisory lock in our PostgreSQL; anywhere else).
     */
    LEADER_ELECTION: z.enum(["pg", "lease"], { message: "must be pg or lease" }).default("pg"),
    /**
     * Name of that election: the Lease's name, or the advisory lock's. The chart derives it from
     * the release, so two releases in one namespace hold two Leases.
     */
    LEADER_ELECTION_NAME: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, "must be a Lease name (RFC 1123 label)")
      .default("webhooks-dispatcher"),
    POD_NAME: z.string().min(1).optional(),
    POD_NAMESPACE: z.string().min(1).optional(),
    ...kubeConfigEnvShape,
  })
  .superRefine(refuseDevelopmentSettings)
  .superRefine((value, ctx) => {
    // The controller watches its own namespace and names itself on events; a Lease needs both too.
    if (value.LEADER_ELECTION !== "lease" && !value.OPERATOR_ENABLED) return;
    for (const key of ["POD_NAME", "POD_NAMESPACE"] as const) {
      if (value[key] === undefined)
        ctx.addIssue({
          code: "custom",
          path: [key],
          message:
            "is required when LEADER_ELECTION is lease or OPERATOR_ENABLED is true (downward API)",
        });
    }
  });

export type DispatcherConfig = ReturnType<typeof loadDispatcherConfig>;

/**
 * The dispatcher is the second entry point of this codebase: no public API, only the internal
 * port.
 */
export function loadDispatcherConfig(source: Record<string, string | undefined> = process.env) {
  return parseEnv(dispatcherShape, source);
}

/** The extra CA (tests only) as PEM, read once at startup by the composition root. */
export function readExtraCa(config: {
  WEBHOOK_EXTRA_CA_FILE?: string | undefined;
}): string | undefined {
  return config.WEBHOOK_EXTRA_CA_FILE === undefined
    ? undefined
    : readFileSync(config.WEBHOOK_EXTRA_CA_FILE, "utf8");
}

/** What `webhooks listen` (src/cli) reads from the environment; its flags override each. */
export function loadListenEnv(source: Record<string, string | undefined> = process.env) {
  return parseEnv(
    z.object({
      BASE_URL: z.url().optional(),
      CLIENT_ID: z.string().min(1).optional(),
      CLIENT_SECRET: z.string().min(1).optional(),
      WEBHOOK_SECRET: z.string().min(1).optional(),
    }),
    source,
  );
}
