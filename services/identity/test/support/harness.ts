import { randomBytes, randomUUID } from "node:crypto";
import type pg from "pg";
import { createTokenVerifier } from "@svc/auth";
import { createPgPool, runMigrations } from "@svc/db";
import type { Logger } from "@svc/logging";
import {
  connectNats,
  drainNats,
  names,
  serve,
  type NatsConnection,
  type Responder,
} from "@svc/messaging";
import {
  createTempPgDatabase,
  createTestIssuer,
  fetchJson,
  silentLogger,
  startApp,
  testEnv,
  TEST_AUDIENCE,
  TEST_ISSUER,
  type JsonResponse,
  type StartedApp,
  type TempDatabase,
  type TestIssuer,
} from "@svc/testing";
import { createApp } from "../../src/app.ts";
import { loadConfig, type Config } from "../../src/config.ts";
import { MIGRATIONS_FOLDER } from "../../src/store/migrations.ts";
import { identityDb } from "../../src/store/db.ts";
import { PgIdentityStore } from "../../src/store/pg-identity-store.ts";
import { NatsVacancyDirectory } from "../../src/messaging/nats-vacancy-directory.ts";

export const TEST_PEPPER = "test-pepper-that-is-at-least-32-bytes-long";
export const PUBLIC_BASE_URL = "https://api.test.invalid";
export const ALL_SCOPES =
  "candidates:read applications:read applications:write recruitment-cases:read";

export interface HarnessOptions {
  environment?: "production" | "sandbox";
  vacancyTimeoutMs?: number;
  now?: () => Date;
  logger?: Logger;
  /** More configuration of the app. */
  env?: Record<string, string>;
}

export interface Body {
  success: boolean;
  data: Record<string, unknown> & Array<Record<string, unknown>>;
  error: { code: string; message: string; details?: Array<{ field: string; message: string }> };
  meta: {
    request_id: string;
    api_version: string;
    pagination?: { page: number; per_page: number; total: number; total_pages: number };
  };
}

/**
 * The fake vacancies service: answers rpc.vacancyExists from `vacancies`, optionally late or
 * failing.
 */
export interface FakeVacancies {
  /** uuid → practice_id of every vacancy that "exists". */
  known: Map<string, string | null>;
  /** uuids asked for, in order. */
  asked: string[];
  delayMs: number;
  fail: boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export interface Harness {
  baseUrl: string;
  databaseUrl: string;
  pool: pg.Pool;
  config: Config;
  namespace: string;
  vacancies: FakeVacancies;
  store: PgIdentityStore;
  /** A new vacancy known to the fake vacancies service; returns its uuid. */
  newVacancy(practiceId?: string | null): string;
  token(scope?: string, clientId?: string): Promise<string>;
  post(
    path: string,
    body: unknown,
    options?: { scope?: string; clientId?: string; headers?: Record<string, string> },
  ): Promise<JsonResponse<Body>>;
  get(path: string, options?: { scope?: string; clientId?: string }): Promise<JsonResponse<Body>>;
  close(): Promise<void>;
}

function fakeVacancies(nc: NatsConnection, subject: string): FakeVacancies {
  let responder: Responder | undefined;
  const fake: FakeVacancies = {
    known: new Map(),
    asked: [],
    delayMs: 0,
    fail: false,
    async stop() {
      await responder?.stop();
      responder = undefined;
    },
    async start() {
      responder = serve<{ uuid: string }, { exists: boolean; practice_id: string | null }>(
        nc,
        subject,
        async ({ uuid }) => {
          fake.asked.push(uuid);
          if (fake.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.delayMs));
          if (fake.fail) throw new Error("vacancies service broke");
          return { exists: fake.known.has(uuid), practice_id: fake.known.get(uuid) ?? null };
        },
        { queue: "vacancies", logger: silentLogger() },
      );
      await nc.flush();
    },
  };
  return fake;
}

/** Requests as a client with a test token (minted once per client and scope set). */
function httpClient(baseUrl: string, issuer: TestIssuer): Pick<Harness, "token" | "post" | "get"> {
  const tokens = new Map<string, Promise<string>>();
  const token = (scope = ALL_SCOPES, clientId = "test-client") => {
    const id = `${clientId} ${scope}`;
    if (!tokens.has(id)) tokens.set(id, issuer.mint({ scope, clientId }));
    return tokens.get(id) as Promise<string>;
  };
  const headersFor = async (o: { scope?: string; clientId?: string }) => ({
    Authorization: `Bearer ${await token(o.scope, o.clientId)}`,
    Accept: "application/json",
  });
  return {
    token,
    async post(path, body, o = {}) {
      const headers = {
        ...(await headersFor(o)),
        "Content-Type": "application/json",
        ...o.headers,
      };
      return fetchJson<Body>(`${baseUrl}${path}`, {
        method: "POST",
        headers,
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    },
    async get(path, o = {}) {
      return fetchJson<Body>(`${baseUrl}${path}`, { headers: await headersFor(o) });
    },
  };
}

/**
 * The identity app on port 0 with its own PostgreSQL database, NATS namespace and fake vacancies
 * service.
 */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const database: TempDatabase = await createTempPgDatabase("identity");
  const pool = createPgPool({
    url: database.url,
    schema: "identity",
    applicationName: "identity-test",
  });
  await runMigrations(pool, { schema: "identity", migrationsFolder: MIGRATIONS_FOLDER });
  const namespace = `t${randomBytes(5).toString("hex")}`;
  const config = loadConfig({
    ENVIRONMENT: options.environment ?? "sandbox",
    IDENTITY_PEPPER: TEST_PEPPER,
    NATS_NAMESPACE: namespace,
    PUBLIC_BASE_URL,
    VACANCY_LOOKUP_TIMEOUT_MS: String(options.vacancyTimeoutMs ?? 2_000),
    ...options.env,
  });
  const appNc = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: "identity-test",
    logger: silentLogger(),
  });
  const vacancyNc = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: "vacancies-fake",
    logger: silentLogger(),
  });
  const vacancies = fakeVacancies(vacancyNc, names(namespace).rpc.vacancyExists);
  await vacancies.start();
  const issuer: TestIssuer = await createTestIssuer();
  const app: StartedApp = await startApp(
    createApp({
      config,
      logger: options.logger ?? silentLogger(),
      verify: createTokenVerifier({
        keys: issuer.keys,
        issuer: TEST_ISSUER,
        audience: TEST_AUDIENCE,
      }),
      pool,
      vacancies: new NatsVacancyDirectory({
        nc: appNc,
        subject: names(namespace).rpc.vacancyExists,
        timeoutMs: config.VACANCY_LOOKUP_TIMEOUT_MS,
      }),
      now: options.now ?? (() => new Date()),
    }),
  );
  return {
    ...httpClient(app.baseUrl, issuer),
    baseUrl: app.baseUrl,
    databaseUrl: database.url,
    pool,
    config,
    namespace,
    vacancies,
    store: new PgIdentityStore(identityDb(pool)),
    newVacancy(practiceId: string | null = `practice-${randomBytes(3).toString("hex")}`) {
      const uuid = randomUUID();
      vacancies.known.set(uuid, practiceId);
      return uuid;
    },
    async close() {
      await app.close();
      await vacancies.stop();
      await drainNats(appNc);
      await drainNats(vacancyNc);
      await pool.end();
      await database.drop();
    },
  };
}

/** Distinct, recognisable personal data per call, so tests never collide with each other. */
export function person(): { email: string; phone: string } {
  const n = randomBytes(4).readUInt32BE(0) % 10_000_000;
  return {
    email: `kandidaat.${randomBytes(4).toString("hex")}@voorbeeld.be`,
    phone: `+32 47${String(n).padStart(7, "0")}`,
  };
}

export function applicationBody(
  vacancyUuid: string,
  candidate: { email?: string | null; phone?: string | null; [other: string]: unknown },
  extra: Record<string, unknown> = {},
) {
  return { vacancy_uuid: vacancyUuid, candidate, consent: true, ...extra };
}

/** Rows in one of the identity tables. */
export async function countRows(pool: pg.Pool, table: string): Promise<number> {
  const result = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM identity.${table}`,
  );
  return result.rows[0]?.n ?? 0;
}
