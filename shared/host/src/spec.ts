import type { RequestListener } from "node:http";
import type pg from "pg";
import type { Meter } from "@opentelemetry/api";
import type { RevocationFeed, remoteKeys, TokenVerifier, WarmUpAccess } from "@svc/auth";
import type { LegacyDb } from "@svc/db";
import type { ReadinessCheck, ServeWarmUp } from "@svc/http";
import type { ElectionSettings, LeaderGroup, LeaderTask } from "@svc/leader";
import type { createLogger, Logger } from "@svc/logging";
import type { NatsConnection, NatsSettings, TopologySettings } from "@svc/messaging";
import type { TelemetrySettings } from "@svc/telemetry";

/** The keys every process reads (`serviceEnvShape` of @svc/config, or the gateway's subset). */
export interface ProcessSettings {
  LOG_LEVEL: Parameters<typeof createLogger>[0]["level"];
  PORT: number;
  HTTP_HEADERS_TIMEOUT_MS: number;
  HTTP_REQUEST_TIMEOUT_MS: number;
  HTTP_MAX_CONNECTIONS: number;
  /** With it the process serves /livez, /readyz and /metrics there and records metrics. */
  INTERNAL_PORT?: number;
}

/** The keys of a process with an internal port. */
export type InternalSettings = TelemetrySettings & {
  INTERNAL_PORT: number;
  ENVIRONMENT: string;
  WARM_UP_MAX_MS: number;
};

export interface PgSettings {
  DATABASE_URL: string;
  DATABASE_POOL_MAX: number;
  MIGRATE_ON_START: boolean;
}

export interface LegacySettings {
  LEGACY_DATABASE_URL: string;
  LEGACY_CONNECT_TIMEOUT_MS: number;
  LEGACY_QUERY_TIMEOUT_MS: number;
  LEGACY_POOL_MAX: number;
}

export type RevocationSettings = NatsSettings &
  TopologySettings & { NATS_NAMESPACE: string; REVOCATION_MAX_STALENESS_MS?: number };

export interface TokenSettings {
  AUTH_JWKS_URL: string;
  TOKEN_ISSUER: string;
  TOKEN_AUDIENCE: string;
}

/** The process's own PostgreSQL schema, migrated at start when MIGRATE_ON_START is set. */
export interface PgResource {
  schema: string;
  /** The drizzle migrations folder of that schema. */
  migrations: string;
}

export interface NatsResource {
  /** Whether a NATS outage makes the process unready (a process whose API needs NATS). */
  readiness: boolean;
  /** false: no caller stack captured per publish (a hot publisher). */
  asyncTraces?: boolean;
}

export interface TokenResource {
  /**
   * Scopes of the warm-up credential (@svc/auth warmUpAccess) the API takes until the warm-up
   * settles; none: no credential.
   */
  warmUpScopes?: ReadonlyArray<string>;
}

/**
 * What a process needs; each only when its configuration has the keys. The host starts them in
 * this order (after the internal port and metrics) and closes them in the reverse one.
 */
export type ResourcesFor<C> = {
  /** The legacy MySQL database (read-only): a `legacy-database` readiness check. */
  legacy?: C extends LegacySettings ? true : never;
  /** The process's PostgreSQL pool: a `database` readiness check. */
  pg?: C extends PgSettings ? PgResource : never;
  nats?: C extends NatsSettings ? NatsResource : never;
  /** The revocation feed (auth's bucket): a `revocations` readiness check until its first load. */
  revocations?: C extends RevocationSettings ? true : never;
  /** Token verification against auth's keys, with the revocation feed. */
  tokens?: C extends RevocationSettings & TokenSettings ? TokenResource : never;
  /**
   * The name of the process's one election (LEADER_ELECTION), or how to read it from the config;
   * its leader-only tasks run under it.
   */
  leadership?: C extends ElectionSettings ? string | ((config: C) => string) : never;
};

export type Resources = {
  legacy?: true;
  pg?: PgResource;
  nats?: NatsResource;
  revocations?: true;
  tokens?: TokenResource;
  leadership?: Leadership;
};

type Leadership = string | ((config: never) => string);

/** The election's name, once the config is loaded. */
export function electionName(leadership: Leadership, config: unknown): string {
  return typeof leadership === "function" ? leadership(config as never) : leadership;
}

/** What the host has started, for the process's adapters, app, readiness, warm-up and tasks. */
export type Host<C, R extends Resources> = {
  readonly name: string;
  readonly version: string;
  readonly config: C;
  readonly logger: Logger;
  /** The process's Meter (a no-op one without an internal port). */
  readonly meter: Meter;
  /**
   * Registers the stop of something the adapters opened: in the reverse order of start-up, it
   * runs after the tasks have stopped and before NATS and the pools close.
   */
  onShutdown(name: string, stop: () => Promise<void>): void;
} & (R extends { legacy: true } ? { readonly legacy: LegacyDb } : unknown) &
  (R extends { pg: PgResource } ? { readonly pool: pg.Pool } : unknown) &
  (R extends { nats: NatsResource } ? { readonly nc: NatsConnection } : unknown) &
  (R extends { revocations: true } | { tokens: TokenResource }
    ? { readonly revocations: RevocationFeed }
    : unknown) &
  (R extends { tokens: TokenResource }
    ? { readonly verify: TokenVerifier; readonly keys: ReturnType<typeof remoteKeys> }
    : unknown) &
  (R extends { tokens: { warmUpScopes: ReadonlyArray<string> } }
    ? { readonly warmUpAccess: WarmUpAccess }
    : unknown) &
  (R extends { leadership: Leadership } ? { readonly leader: LeaderGroup } : unknown);

/** Something started that stops. */
export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * A background task: `start` runs in every replica; a `leaderOnly` task runs in the process's
 * leader group, on the elected replica only (`leadership`).
 */
export type ProcessTask =
  | { name: string; leaderOnly?: false; start(): Promise<Stoppable> | Stoppable }
  | ({ leaderOnly: true } & LeaderTask);

/** A process, declared: what it needs and what it runs; the host does the rest (runProcess). */
export interface ProcessSpec<C extends ProcessSettings, R extends ResourcesFor<C>, A> {
  /** Names its logs, metrics, PostgreSQL sessions and NATS connections. */
  name: string;
  version: string;
  /** Reads the configuration; a throw is printed for a person (every bad key) and exits 1. */
  config: () => C | Promise<C>;
  resources?: R;
  /** Builds the process's adapters from what the host started. */
  adapters?: (host: Host<C, R & Resources>) => A | Promise<A>;
  /** The public API, served on PORT once everything else has started. */
  app?: (host: Host<C, R & Resources>, adapters: A) => RequestListener;
  /** Listener options: the address to bind (default every interface), the drain bound. */
  http?: { bind?: string; drainMs?: number };
  /** Readiness checks besides those of the resources. */
  readiness?: (host: Host<C, R & Resources>, adapters: A) => ReadinessCheck[];
  /** Run once the checks pass, before the process reports ready (bounded by WARM_UP_MAX_MS). */
  warmUp?: (host: Host<C, R & Resources>, adapters: A) => ServeWarmUp["run"];
  /** Started in order once the resources are up; stopped in the reverse order. */
  tasks?: (host: Host<C, R & Resources>, adapters: A) => ProcessTask[] | Promise<ProcessTask[]>;
}
