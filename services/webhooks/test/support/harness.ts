import { randomBytes } from "node:crypto";
import type pg from "pg";
import { createTokenVerifier } from "@svc/auth";
import { createPgPool, runMigrations } from "@svc/db";
import { buildEvent, type EventPayload, type EventType } from "@svc/events";
import type { LeaderGroup } from "@svc/leader";
import {
  connectNats,
  drainNats,
  jetstream,
  jetstreamManager,
  names,
  publish,
  type NatsConnection,
  type Names,
} from "@svc/messaging";
import {
  createTempPgDatabase,
  createTestIssuer,
  fetchJson,
  silentLogger,
  startApp,
  testEnv,
  type JsonResponse,
  type StartedApp,
  waitFor,
  sleep,
  type TempDatabase,
  type TestIssuer,
  TEST_AUDIENCE,
  TEST_ISSUER,
} from "@svc/testing";

export { sleep, waitFor };
import type { Logger } from "@svc/logging";
import { createApp, type AppDeps } from "../../src/app.ts";
import {
  loadConfig,
  loadDispatcherConfig,
  type Config,
  type DispatcherConfig,
} from "../../src/config.ts";
import { MIGRATIONS_FOLDER } from "../../src/store/migrations.ts";
import { systemClock } from "../../src/domain/model.ts";
import { createDeliveryClient } from "../../src/compose.ts";
import {
  startDispatcher,
  type RunningDispatcher,
} from "../../src/workers/dispatcher/start-dispatcher.ts";
import type { ResolvedAddress, WebhookHttpClient } from "../../src/domain/ports.ts";
import type { HostResolver } from "../../src/outbound/resolver.ts";
import { createNatsDeliveryQueue } from "../../src/messaging/nats-delivery-queue.ts";
import { createDispatcherLeaderGroup } from "../../src/workers/start-leader-group.ts";

export const SECRET_KEY = randomBytes(32).toString("base64");
/** On loopback, as the local stack's: WEBHOOK_ALLOW_LOOPBACK (below) is refused anywhere else. */
export const PUBLIC_BASE_URL = "http://localhost:8080";

/** A namespace no other test file uses (NATS_NAMESPACE allows lower-case letters and digits). */
export function testNamespace(): string {
  return `t${randomBytes(6).toString("hex")}`;
}

/**
 * A resolver whose answers a test sets and changes: name → addresses; unknown names do not
 * resolve.
 */
export function fakeResolver(
  initial: Record<string, string[]> = {},
): HostResolver & { set(name: string, addresses: string[]): void } {
  const answers = new Map(Object.entries(initial));
  return {
    set: (name, addresses) => void answers.set(name, addresses),
    async resolve(hostname) {
      const found = answers.get(hostname);
      if (!found)
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
      return found.map((address): ResolvedAddress => ({
        address,
        family: address.includes(":") ? 6 : 4,
      }));
    },
  };
}

export function baseEnv(h: {
  databaseUrl: string;
  namespace: string;
  natsUrl: string;
  caFile?: string;
}): Record<string, string> {
  return {
    ENVIRONMENT: "sandbox",
    LOG_LEVEL: "silent",
    DATABASE_URL: h.databaseUrl,
    NATS_SERVERS: h.natsUrl,
    NATS_NAMESPACE: h.namespace,
    PUBLIC_BASE_URL,
    WEBHOOK_SECRET_KEY: SECRET_KEY,
    WEBHOOK_ALLOW_LOOPBACK: "true",
    ...(h.caFile && { WEBHOOK_EXTRA_CA_FILE: h.caFile }),
  };
}

export type Harness = {
  database: TempDatabase;
  pool: pg.Pool;
  nc: NatsConnection;
  n: Names;
  namespace: string;
  issuer: TestIssuer;
  app: StartedApp;
  config: Config;
  env: Record<string, string>;
  /** Calls the API as `clientId` with the given scopes. */
  api<T = ApiBody>(
    clientId: string,
    method: string,
    path: string,
    body?: unknown,
    scope?: string,
  ): Promise<JsonResponse<T>>;
  publishEvent(
    type: EventType,
    entityId?: string,
    options?: { headers?: Record<string, string> },
  ): Promise<EventPayload>;
  startDispatcher(
    overrides?: Record<string, string>,
    resolver?: HostResolver,
  ): Promise<{
    dispatcher: RunningDispatcher;
    config: DispatcherConfig;
    client: WebhookHttpClient;
  }>;
  close(): Promise<void>;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ApiBody = { success: boolean; data: any; meta: any; error?: any };

export async function startHarness(options: {
  resolver: HostResolver;
  caFile?: string;
  apiEnv?: Record<string, string>;
  natsUrl?: string;
  /** The API's logger (default: silent). */
  logger?: Logger;
  /** The revocation feed the API hears (default: none, no client revoked). */
  revocations?: AppDeps["revocations"];
}): Promise<Harness> {
  const database = await createTempPgDatabase("wh");
  const pool = createPgPool({
    url: database.url,
    schema: "webhooks",
    applicationName: "webhooks-test",
    max: 20,
  });
  await runMigrations(pool, { schema: "webhooks", migrationsFolder: MIGRATIONS_FOLDER });
  const namespace = testNamespace();
  const n = names(namespace);
  const logger = silentLogger();
  const natsUrl = options.natsUrl ?? testEnv.TEST_NATS_URL;
  const nc = await connectNats({
    servers: natsUrl,
    name: "webhooks-test",
    logger,
    reconnectTimeWaitMs: 100,
  });
  const env = baseEnv({
    databaseUrl: database.url,
    namespace,
    natsUrl,
    ...(options.caFile && { caFile: options.caFile }),
  });
  const config = loadConfig({ ...env, ...options.apiEnv });
  const issuer = await createTestIssuer();
  const verify = createTokenVerifier({
    keys: issuer.keys,
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
  });
  const queue = createNatsDeliveryQueue(jetstream(nc), n);
  const app = await startApp(
    createApp({
      config,
      logger: options.logger ?? logger,
      ...(options.revocations && { revocations: options.revocations }),
      verify,
      pool,
      resolver: options.resolver,
      queue,
      clock: systemClock,
    }),
  );
  const running: Array<{
    dispatcher: RunningDispatcher;
    leader: LeaderGroup;
    client: WebhookHttpClient;
  }> = [];
  // Minting an ES256 token per call would dominate the CPU of tests that poll the API.
  const tokens = new Map<string, Promise<string>>();
  const tokenFor = (clientId: string, scope: string) => {
    const key = `${clientId} ${scope}`;
    if (!tokens.has(key)) tokens.set(key, issuer.mint({ clientId, scope }));
    return tokens.get(key)!;
  };
  return {
    database,
    pool,
    nc,
    n,
    namespace,
    issuer,
    app,
    config,
    env,
    async api(clientId, method, path, body, scope = "webhooks:read webhooks:write") {
      const token = await tokenFor(clientId, scope);
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        accept: "application/json",
      };
      if (body !== undefined) headers["content-type"] = "application/json";
      return fetchJson(`${app.baseUrl}${path}`, {
        method,
        headers,
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    },
    async publishEvent(type, entityId = randomBytes(4).toString("hex"), opts = {}) {
      const event = buildEvent({ type, entityId, publicBaseUrl: PUBLIC_BASE_URL });
      await publish(jetstream(nc), n.eventSubject(type), event, {
        msgId: event.event_uuid,
        ...(opts.headers && { headers: opts.headers }),
      });
      return event;
    },
    async startDispatcher(overrides = {}, resolver = options.resolver) {
      const dconfig = loadDispatcherConfig({
        ...env,
        WEBHOOK_RETRY_SCHEDULE_MS: "100,200,300,400,500",
        WEBHOOK_ATTEMPT_TIMEOUT_MS: "1500",
        WEBHOOK_DELIVERY_ACK_WAIT_MS: "5000",
        WEBHOOK_REQUEUE_SWEEP_MS: "500",
        ...overrides,
      });
      const client = createDeliveryClient(dconfig, resolver);
      const dispatcher = await startDispatcher({
        config: dconfig,
        nc,
        pool,
        client,
        clock: systemClock,
        logger,
      });
      // The leader group as dispatcher-main builds it (retention; the operator needs a cluster).
      const leader = await createDispatcherLeaderGroup({
        config: dconfig,
        pool,
        clock: systemClock,
        logger,
      });
      leader.start();
      running.push({ dispatcher, leader, client });
      return { dispatcher, config: dconfig, client };
    },
    async close() {
      // Every step runs even when an earlier one fails, so no stream or database is left behind.
      const steps: Array<() => Promise<unknown>> = [
        ...running.map((r) => async () => {
          await r.leader.stop();
          await r.dispatcher.stop();
          await r.client.close();
        }),
        () => app.close(),
        async () => {
          const jsm = await jetstreamManager(nc);
          for (const stream of [n.eventsStream, n.deliveriesStream])
            await jsm.streams.delete(stream).catch(() => false);
        },
        () => drainNats(nc, { timeoutMs: 2_000 }),
        () => pool.end(),
        () => database.drop(),
      ];
      for (const step of steps) await step().catch(() => undefined);
    },
  };
}

/** True once there are `expected` delivery records and every one is succeeded. */
export async function allDeliveriesSucceeded(pool: pg.Pool, expected: number): Promise<boolean> {
  const { rows } = await pool.query<{ status: string; n: number }>(
    "SELECT status, count(*)::int AS n FROM webhooks.deliveries GROUP BY status",
  );
  return rows.length === 1 && rows[0]!.status === "succeeded" && rows[0]!.n === expected;
}
