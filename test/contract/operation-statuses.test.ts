/**
 * Every status an operation declares beyond what every operation of its kind answers (those are
 * status-table.test.ts's): its 2xx, 404, 409, 422, 429, the token endpoint's RFC 6749 answers,
 * 503 LEGACY_SOURCE_UNAVAILABLE, and 500 on every operation. The rows are read from production's
 * document; each is driven against the real apps of every service (in process, production, each on
 * its own PostgreSQL database, one seeded legacy MariaDB database, a NATS namespace; every answer
 * checked against the document by the contract setup), or names why the status cannot happen
 * there. A declared status with neither fails the table, and so does a row the document does not
 * declare. 503 LEGACY_SOURCE_UNAVAILABLE comes from apps whose legacy database is a closed port;
 * 500 from an induced fault: the services' schemas and the legacy tables dropped after the other
 * rows ran, then each operation's 2xx request sent again.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEvent } from "@svc/events";
import { createConnection } from "mysql2/promise";
import { createLegacyDb, createPgPool, runMigrations, type LegacyDb } from "@svc/db";
import { listen, type RunningServer } from "@svc/http";
import { connectNats, drainNats, type NatsConnection, type Responder } from "@svc/messaging";
import {
  baseErrors,
  readOpenApiDocument,
  type OpenApiDocument,
  type OperationSpec,
} from "@svc/openapi";
import { fixtures } from "@svc/sandbox";
import {
  createTempPgDatabase,
  silentLogger,
  testEnv,
  unusedPort,
  type TempDatabase,
} from "@svc/testing";
import { allOperations } from "../../tools/openapi.ts";
import { CRM_ACCOUNT } from "./crm-account.ts";
import { createApp as createGateway } from "../../services/gateway/src/app.ts";
import { basic, startAuth, type AuthUnderTest } from "../../services/auth/test/support/harness.ts";
import {
  config as vacanciesConfig,
  seededLegacyDatabase,
  startVacancies,
  type RunningVacancies,
} from "../../services/vacancies/test/support/harness.ts";
import { serveVacancyExists } from "../../services/vacancies/src/messaging/vacancy-exists.ts";
import { MysqlVacancySource } from "../../services/vacancies/src/source/mysql-vacancy-source.ts";
import {
  startPractices,
  type PracticesApp,
} from "../../services/practices/test/support/harness.ts";
import { PgCrmMirrorStore } from "../../services/practices/src/store/pg-crm-mirror-store.ts";
import { MIGRATIONS_FOLDER as PRACTICES_MIGRATIONS } from "../../services/practices/src/store/migrations.ts";
import {
  ALL_SCOPES as IDENTITY_SCOPES,
  applicationBody,
  person,
  startHarness as startIdentity,
  type Harness as IdentityHarness,
} from "../../services/identity/test/support/harness.ts";
import {
  fakeResolver,
  PUBLIC_BASE_URL,
  startHarness as startWebhooks,
  type Harness as WebhooksHarness,
} from "../../services/webhooks/test/support/harness.ts";

const DOCUMENT: OpenApiDocument = readOpenApiDocument("production");
const OPERATIONS: OperationSpec[] = Object.values(await allOperations()).flat();

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** One request; the contract setup checks the answer against the document. */
async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] ??= "application/json";
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(options.body !== undefined && {
      body: typeof options.body === "string" ? options.body : JSON.stringify(options.body),
    }),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text && /json/.test(res.headers.get("content-type") ?? "") ? JSON.parse(text) : text,
  };
}

// The apps

let auth: AuthUnderTest;
let client: { id: string; secret: string };
let gateway: RunningServer;
let legacyDb: TempDatabase;
let vacancies: RunningVacancies;
let vacanciesDown: RunningVacancies;
let practicesDb: TempDatabase;
let practicesPool: ReturnType<typeof createPgPool>;
let practices: PracticesApp;
let practicesDown: PracticesApp;
/** Apps replaced during the test, closed at the end. */
const stale: Array<{ close(): Promise<void> }> = [];
let identity: IdentityHarness;
let webhooks: WebhooksHarness;
/** A port nothing listens on: a legacy database, or a service, that cannot be reached. */
let closedPort: number;

const minted = new Map<string, Promise<string>>();
/** A token minted once per issuer, scope and client. */
function once(key: string, mint: () => Promise<string>): Promise<string> {
  if (!minted.has(key)) minted.set(key, mint());
  return minted.get(key)!;
}
const practicesToken = (scope: string) =>
  once(`practices ${scope}`, () =>
    practices.issuer.mint({ scope, clientId: "operation-statuses" }),
  );
const webhooksToken = (scope: string, clientId = "operation-statuses") =>
  once(`webhooks ${scope} ${clientId}`, () => webhooks.issuer.mint({ scope, clientId }));

beforeAll(async () => {
  closedPort = await unusedPort();
  const closedLegacy = `mysql://root@127.0.0.1:${closedPort}/closed`;
  [auth, legacyDb, practicesDb, identity, webhooks] = await Promise.all([
    startAuth({ ENVIRONMENT: "production", TOKEN_RATE_CLIENT_BURST: "3" }),
    seededLegacyDatabase(0),
    createTempPgDatabase("op_statuses"),
    // A request waits 200 ms (not 10 s) for one with the same Idempotency-Key before its 409.
    startIdentity({ environment: "production", env: { IDEMPOTENCY_WAIT_MS: "200" } }),
    startWebhooks({
      resolver: fakeResolver({ "hooks.example.com": ["93.184.216.34"] }),
      apiEnv: { ENVIRONMENT: "production", WEBHOOK_ALLOW_LOOPBACK: "false" },
    }),
  ]);
  const created = await auth.manager.create({
    name: "operation statuses",
    scopes: ["vacancies:read"],
  });
  client = { id: created.client.id, secret: created.secret };
  gateway = await listen(
    createGateway({
      config: { GATEWAY_UPSTREAMS: { auth: [`http://127.0.0.1:${closedPort}`] } } as never,
      logger: silentLogger(),
    }),
    0,
    "127.0.0.1",
  );
  practicesPool = createPgPool({
    url: practicesDb.url,
    schema: "practices",
    applicationName: "operation-statuses",
  });
  await runMigrations(practicesPool, {
    schema: "practices",
    migrationsFolder: PRACTICES_MIGRATIONS,
  });
  const production = { ENVIRONMENT: "production" };
  // One token issuer per service: the apps over the closed port start after the first.
  [vacancies, practices] = await Promise.all([
    startVacancies({ legacyUrl: legacyDb.url }),
    startPractices({
      legacyUrl: legacyDb.url,
      env: production,
      crmMirror: new PgCrmMirrorStore(practicesPool, { now: Date.now }),
    }),
  ]);
  [vacanciesDown, practicesDown] = await Promise.all([
    startVacancies({ legacyUrl: closedLegacy, timeoutMs: 1_000 }),
    startPractices({
      legacyUrl: closedLegacy,
      env: production,
      legacyTimeoutMs: 1_000,
      issuer: practices.issuer,
    }),
  ]);
}, 90_000);

afterAll(async () => {
  await Promise.allSettled([
    gateway?.close(100),
    vacancies?.close(),
    vacanciesDown?.close(),
    practices?.close(),
    practicesDown?.close(),
    identity?.close(),
    webhooks?.close(),
    auth?.close(),
    ...stale.map((app) => app.close()),
  ]);
  await practicesPool?.end();
  await Promise.allSettled([legacyDb?.drop(), practicesDb?.drop()]);
});

// Requests, per service

/** The field of a set-up request's answer, which must have succeeded. */
async function created(answer: Promise<Answer>, field: string): Promise<string> {
  const { status, body } = await answer;
  if (status >= 300) throw new Error(`set-up answered ${status}: ${JSON.stringify(body)}`);
  return body.data[field] as string;
}

const vacancyGet = async (path: string, on = () => vacancies) =>
  call(on().app.baseUrl, "GET", path, {
    token: await once("vacancies", () => vacancies.token()),
  });

const practicesCall = async (
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; on?: () => PracticesApp } = {},
) => {
  const scope = path.startsWith("/v1/crm-mirror") ? "crm-mirror:write" : "practices:read";
  const app = (options.on ?? (() => practices))();
  return call(app.app.baseUrl, method, path, { ...options, token: await practicesToken(scope) });
};

const crmPath = (id: string) => `/v1/crm-mirror/accounts/${encodeURIComponent(id)}`;
const putAccount = (id: string) => practicesCall("PUT", crmPath(id), { body: CRM_ACCOUNT });

const identityCall = async (
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
) =>
  call(identity.baseUrl, method, path, {
    ...options,
    token: await identity.token(IDENTITY_SCOPES),
  });

/** A new application of a new person for a vacancy the (stand-in) vacancies service knows. */
const apply = () =>
  identityCall("POST", "/v1/applications", {
    body: applicationBody(identity.newVacancy(), person()),
  });

const WEBHOOK_SCOPES = "webhooks:read webhooks:write vacancies:read";
const webhooksCall = async (
  method: string,
  path: string,
  options: { body?: unknown; clientId?: string } = {},
) =>
  call(webhooks.app.baseUrl, method, path, {
    ...options,
    token: await webhooksToken(WEBHOOK_SCOPES, options.clientId),
  });

/** A new enabled (or disabled) subscription of the test's client. */
async function subscription(enabled = true): Promise<string> {
  const id = await created(
    webhooksCall("POST", "/v1/webhooks", {
      body: { url: "https://hooks.example.com/in", event_types: ["vacancy.created"] },
    }),
    "webhook_uuid",
  );
  if (!enabled) await webhooksCall("PATCH", `/v1/webhooks/${id}`, { body: { enabled: false } });
  return id;
}

/** An event in the feed and one delivery of it to `subscriptionId` as the dispatcher leaves it. */
async function delivery(subscriptionId: string, status: "failed" | "succeeded"): Promise<string> {
  const id = randomUUID();
  const event = buildEvent({
    type: "vacancy.created",
    entityId: randomUUID(),
    publicBaseUrl: PUBLIC_BASE_URL,
  });
  await webhooks.pool.query(
    `WITH e AS (INSERT INTO webhooks.events (event_uuid, event_type, body, received_at)
       VALUES ($2, 'vacancy.created', $3, now()))
     INSERT INTO webhooks.deliveries (id, subscription_id, event_uuid, event_type, status,
       failure_reason, round, round_attempts, attempt_count, last_status_code, last_attempt_at,
       queued_at, created_at, updated_at)
     VALUES ($1, $4, $2, 'vacancy.created', $5, CASE $5 WHEN 'failed' THEN 'http_status' END,
       1, 1, 1, CASE $5 WHEN 'failed' THEN 410 ELSE 204 END, now(), now(), now(), now())`,
    [id, event.event_uuid, JSON.stringify(event), subscriptionId, status],
  );
  return id;
}

/** A failed delivery's path (`/v1/webhooks/{webhook_uuid}/deliveries/{delivery_uuid}`). */
async function failedDelivery(): Promise<string> {
  const sub = await subscription();
  return `/v1/webhooks/${sub}/deliveries/${await delivery(sub, "failed")}`;
}

/** `days` before now, plus `ms`, as a date-time. */
const daysAgo = (days: number, ms = 0) =>
  new Date(Date.now() - days * 86_400_000 + ms).toISOString();

async function feedEvent(): Promise<string> {
  const sub = await subscription();
  await delivery(sub, "succeeded");
  const { rows } = await webhooks.pool.query<{ event_uuid: string }>(
    "SELECT event_uuid FROM webhooks.deliveries WHERE subscription_id = $1",
    [sub],
  );
  return rows[0]!.event_uuid;
}

const tokenRequest = (
  body: string,
  clientId = client.id,
  secret = client.secret,
  at = auth.app.baseUrl,
) =>
  call(at, "POST", "/oauth/token", {
    body,
    headers: {
      authorization: basic(clientId, secret),
      "content-type": "application/x-www-form-urlencoded",
    },
  });

// The table

type Driver = () => Promise<Answer>;
/** A request whose set-up comes first: the 500 rows break the stores between the two. */
interface Staged {
  prepare(): Promise<unknown>;
  send(prepared: unknown): Promise<Answer>;
}
const staged = <T>(prepare: () => Promise<T>, send: (prepared: T) => Promise<Answer>): Staged => ({
  prepare,
  send: send as (prepared: unknown) => Promise<Answer>,
});
const stagesOf = (row: Driver | Staged): Staged =>
  typeof row === "function" ? { prepare: async () => undefined, send: () => row() } : row;
/** How a row is driven, or (a string) why its status cannot happen there. */
type Row = Driver | Staged | string;

const NO_DEPENDENCY = [
  "answered from what the process holds since it started (no store, no other service):",
  "no request reaches a dependency that could fail; only a defect in the code could",
].join(" ");

const UNKNOWN = randomUUID();

const authGet = (path: string) => () => call(auth.app.baseUrl, "GET", path);

const TABLE: Record<string, Record<number, Row>> = {
  getHealth: { 200: authGet("/health"), 500: NO_DEPENDENCY },
  getHealthV1: { 200: authGet("/v1/health"), 500: NO_DEPENDENCY },
  getVersion: { 200: authGet("/version"), 500: NO_DEPENDENCY },
  getVersionV1: { 200: authGet("/v1/version"), 500: NO_DEPENDENCY },
  getOpenApiDocument: { 200: authGet("/openapi.json"), 500: NO_DEPENDENCY },
  getApiReference: { 200: authGet("/reference"), 500: NO_DEPENDENCY },
  getApiReferenceFile: {
    200: () => call(auth.app.baseUrl, "GET", "/reference/reference.js"),
    404: () => call(auth.app.baseUrl, "GET", "/reference/nothing.js"),
    500: NO_DEPENDENCY,
  },
  requestToken: {
    200: () => tokenRequest("grant_type=client_credentials"),
    400: () => tokenRequest("grant_type=password"),
    // An id of its own: the per-client limit (3) leaves the real client's for its 200 and 500.
    401: () => tokenRequest("grant_type=client_credentials", `unknown-${randomUUID()}`, "x"),
    413: () => tokenRequest(`grant_type=client_credentials&pad=${"a".repeat(8_000)}`),
    429: async () => {
      // The per-client burst (3 here), keyed by the presented id.
      const id = `limited-${randomUUID()}`;
      let answer: Answer | undefined;
      for (let i = 0; i < 5 && answer?.status !== 429; i++)
        answer = await tokenRequest("grant_type=client_credentials", id, "x");
      return answer!;
    },
    // auth behind the gateway is unreachable: the gateway answers in RFC 6749 form.
    503: () =>
      tokenRequest(
        "grant_type=client_credentials",
        client.id,
        client.secret,
        `http://127.0.0.1:${gateway.port}`,
      ),
  },
  listVacancies: {
    200: () => vacancyGet("/v1/vacancies"),
    422: () => vacancyGet("/v1/vacancies?per_page=0"),
    503: () => vacancyGet("/v1/vacancies", () => vacanciesDown),
  },
  getVacancy: {
    200: () => vacancyGet(`/v1/vacancies/${fixtures.vacancies.ordinary}`),
    404: () => vacancyGet(`/v1/vacancies/${UNKNOWN}`),
    422: () => vacancyGet("/v1/vacancies/not-a-uuid"),
    503: () => vacancyGet(`/v1/vacancies/${fixtures.vacancies.ordinary}`, () => vacanciesDown),
  },
  getVacancyMetadata: {
    200: () => vacancyGet("/v1/meta/vacancies"),
    422: () => vacancyGet("/v1/meta/vacancies?x=1"),
    503: () => vacancyGet("/v1/meta/vacancies", () => vacanciesDown),
  },
  listPractices: {
    200: () => practicesCall("GET", "/v1/practices"),
    422: () => practicesCall("GET", "/v1/practices?per_page=0"),
    503: () => practicesCall("GET", "/v1/practices", { on: () => practicesDown }),
  },
  getPractice: {
    200: () => practicesCall("GET", `/v1/practices/${fixtures.practices.primaryComplete}`),
    404: () => practicesCall("GET", `/v1/practices/${UNKNOWN}`),
    422: () => practicesCall("GET", "/v1/practices/not%00an-id"),
    503: () =>
      practicesCall("GET", `/v1/practices/${fixtures.practices.primaryComplete}`, {
        on: () => practicesDown,
      }),
  },
  getPracticeMetadata: {
    200: () => practicesCall("GET", "/v1/meta/practices"),
    422: () => practicesCall("GET", "/v1/meta/practices?x=1"),
    503: () => practicesCall("GET", "/v1/meta/practices", { on: () => practicesDown }),
  },
  listCrmAccounts: {
    200: () => practicesCall("GET", "/v1/crm-mirror/accounts"),
    422: () => practicesCall("GET", "/v1/crm-mirror/accounts?per_page=0"),
  },
  getCrmAccount: {
    200: staged(
      () => created(putAccount(`crm-${randomUUID()}`), "crm_id"),
      (id) => practicesCall("GET", crmPath(id)),
    ),
    404: () => practicesCall("GET", crmPath(`crm-${randomUUID()}`)),
    422: () => practicesCall("GET", crmPath(" crm-1")),
  },
  putCrmAccount: {
    201: () => putAccount(`crm-${randomUUID()}`),
    // The same write again: a duplicate, acknowledged.
    200: staged(
      () => created(putAccount(`crm-${randomUUID()}`), "crm_id"),
      (id) => putAccount(id),
    ),
    422: () => practicesCall("PUT", crmPath("crm-1"), { body: {} }),
  },
  deleteCrmAccount: {
    200: () =>
      practicesCall("DELETE", crmPath(`crm-${randomUUID()}`), {
        headers: { "CRM-Modified-On": "2025-06-01T10:00:00Z" },
      }),
    422: () => practicesCall("DELETE", crmPath("crm-1")),
  },
  bulkWriteCrmAccounts: {
    200: () =>
      practicesCall("POST", "/v1/crm-mirror/accounts:bulk", {
        body: { accounts: [{ ...CRM_ACCOUNT, crm_id: `crm-${randomUUID()}` }] },
      }),
    422: () => practicesCall("POST", "/v1/crm-mirror/accounts:bulk", { body: { accounts: [] } }),
  },
  listApplications: {
    200: () => identityCall("GET", "/v1/applications"),
    422: () => identityCall("GET", "/v1/applications?per_page=0"),
  },
  createApplication: {
    201: apply,
    // One application per person and vacancy: the same again answers the existing one.
    200: staged(
      async () => {
        const body = applicationBody(identity.newVacancy(), person());
        await created(identityCall("POST", "/v1/applications", { body }), "application_uuid");
        return body;
      },
      (body) => identityCall("POST", "/v1/applications", { body }),
    ),
    // The same key while its first request still runs (its vacancy lookup held 1 s, the wait
    // 0.2 s).
    409: async () => {
      const body = applicationBody(identity.newVacancy(), person());
      const headers = { "Idempotency-Key": randomUUID() };
      identity.vacancies.delayMs = 1_000;
      try {
        const both = await Promise.all(
          [0, 1].map(() => identityCall("POST", "/v1/applications", { body, headers })),
        );
        // Whichever came second; the first's 201 if neither waited (the row then fails).
        return both.find((answer) => answer.status === 409) ?? both[0]!;
      } finally {
        identity.vacancies.delayMs = 0;
      }
    },
    422: () => identityCall("POST", "/v1/applications", { body: {} }),
    // The real vacancies responder over a legacy database that refuses connections.
    503: async () => {
      const nc: NatsConnection = await connectNats({
        servers: testEnv.TEST_NATS_URL,
        name: "operation-statuses-vacancies",
        logger: silentLogger(),
      });
      const legacy: LegacyDb = createLegacyDb({
        url: `mysql://root@127.0.0.1:${closedPort}/closed`,
        connectTimeoutMs: 1_000,
      });
      await identity.vacancies.stop();
      let responder: Responder | undefined;
      try {
        responder = serveVacancyExists(
          nc,
          identity.namespace,
          new MysqlVacancySource(legacy, vacanciesConfig.TIME_ZONE),
          silentLogger(),
        );
        await nc.flush();
        return await apply();
      } finally {
        await responder?.stop();
        await identity.vacancies.start();
        await drainNats(nc);
        await legacy.close().catch(() => undefined);
      }
    },
  },
  getApplication: {
    200: staged(
      () => created(apply(), "application_uuid"),
      (id) => identityCall("GET", `/v1/applications/${id}`),
    ),
    404: () => identityCall("GET", `/v1/applications/${UNKNOWN}`),
    422: () => identityCall("GET", "/v1/applications/not-a-uuid"),
  },
  submitApplication: {
    201: staged(
      () => created(apply(), "application_uuid"),
      (id) => identityCall("POST", `/v1/applications/${id}/submission`),
    ),
    // Submitted before: the recorded submission.
    200: staged(
      async () => {
        const path = `/v1/applications/${await created(apply(), "application_uuid")}/submission`;
        await created(identityCall("POST", path), "application_uuid");
        return path;
      },
      (path) => identityCall("POST", path),
    ),
    404: () => identityCall("POST", `/v1/applications/${UNKNOWN}/submission`),
    422: () => identityCall("POST", "/v1/applications/not-a-uuid/submission"),
  },
  listCandidates: {
    200: () => identityCall("GET", "/v1/candidates"),
    422: () => identityCall("GET", "/v1/candidates?per_page=0"),
  },
  getCandidate: {
    200: staged(
      () => created(apply(), "candidate_uuid"),
      (id) => identityCall("GET", `/v1/candidates/${id}`),
    ),
    404: () => identityCall("GET", `/v1/candidates/${UNKNOWN}`),
    422: () => identityCall("GET", "/v1/candidates/not-a-uuid"),
  },
  listRecruitmentCases: {
    200: () => identityCall("GET", "/v1/recruitment-cases"),
    422: () => identityCall("GET", "/v1/recruitment-cases?per_page=0"),
  },
  getRecruitmentCase: {
    200: staged(
      async () => {
        await created(apply(), "application_uuid");
        const list = await identityCall("GET", "/v1/recruitment-cases");
        return list.body.data[0].recruitment_case_uuid as string;
      },
      (id) => identityCall("GET", `/v1/recruitment-cases/${id}`),
    ),
    404: () => identityCall("GET", `/v1/recruitment-cases/${UNKNOWN}`),
    422: () => identityCall("GET", "/v1/recruitment-cases/not-a-uuid"),
  },
  listEvents: {
    200: () => webhooksCall("GET", "/v1/events"),
    422: () => webhooksCall("GET", "/v1/events?type=nope"),
  },
  getEvent: {
    200: staged(feedEvent, (id) => webhooksCall("GET", `/v1/events/${id}`)),
    404: () => webhooksCall("GET", `/v1/events/${UNKNOWN}`),
    422: () => webhooksCall("GET", "/v1/events/not-a-uuid"),
  },
  listWebhooks: {
    200: () => webhooksCall("GET", "/v1/webhooks"),
    422: () => webhooksCall("GET", "/v1/webhooks?per_page=0"),
  },
  createWebhook: {
    201: () =>
      webhooksCall("POST", "/v1/webhooks", {
        body: { url: "https://hooks.example.com/in", event_types: ["vacancy.created"] },
      }),
    422: () => webhooksCall("POST", "/v1/webhooks", { body: {} }),
  },
  listAllWebhookDeliveries: {
    200: () => webhooksCall("GET", "/v1/webhooks/deliveries"),
    422: () => webhooksCall("GET", "/v1/webhooks/deliveries?per_page=0"),
  },
  listWebhookEventTypes: {
    200: () => webhooksCall("GET", "/v1/webhooks/event-types"),
    422: () => webhooksCall("GET", "/v1/webhooks/event-types?x=1"),
    500: NO_DEPENDENCY,
  },
  listPortalSessions: {
    200: () => webhooksCall("GET", "/v1/webhooks/portal-sessions"),
    422: () => webhooksCall("GET", "/v1/webhooks/portal-sessions?per_page=0"),
  },
  createPortalSession: {
    201: () => webhooksCall("POST", "/v1/webhooks/portal-sessions", { body: {} }),
    422: () => webhooksCall("POST", "/v1/webhooks/portal-sessions", { body: { ttl_seconds: 0 } }),
    // The per-client limit (a burst, then a few a minute), on a client of its own.
    429: async () => {
      const clientId = `portal-${randomUUID()}`;
      let answer: Answer | undefined;
      for (let i = 0; i < 30 && answer?.status !== 429; i++)
        answer = await webhooksCall("POST", "/v1/webhooks/portal-sessions", { body: {}, clientId });
      return answer!;
    },
  },
  revokePortalSession: {
    200: staged(
      () => created(webhooksCall("POST", "/v1/webhooks/portal-sessions", { body: {} }), "id"),
      (id) => webhooksCall("DELETE", `/v1/webhooks/portal-sessions/${id}`),
    ),
    404: () => webhooksCall("DELETE", `/v1/webhooks/portal-sessions/${UNKNOWN}`),
    422: () => webhooksCall("DELETE", "/v1/webhooks/portal-sessions/not-a-uuid"),
  },
  getWebhook: {
    200: staged(subscription, (id) => webhooksCall("GET", `/v1/webhooks/${id}`)),
    404: () => webhooksCall("GET", `/v1/webhooks/${UNKNOWN}`),
    422: () => webhooksCall("GET", "/v1/webhooks/not-a-uuid"),
  },
  updateWebhook: {
    200: staged(subscription, (id) =>
      webhooksCall("PATCH", `/v1/webhooks/${id}`, { body: { enabled: false } }),
    ),
    404: () => webhooksCall("PATCH", `/v1/webhooks/${UNKNOWN}`, { body: { enabled: false } }),
    422: async () => webhooksCall("PATCH", `/v1/webhooks/${await subscription()}`, { body: {} }),
  },
  deleteWebhook: {
    200: staged(subscription, (id) => webhooksCall("DELETE", `/v1/webhooks/${id}`)),
    404: () => webhooksCall("DELETE", `/v1/webhooks/${UNKNOWN}`),
    422: () => webhooksCall("DELETE", "/v1/webhooks/not-a-uuid"),
  },
  listWebhookDeliveries: {
    200: staged(subscription, (id) => webhooksCall("GET", `/v1/webhooks/${id}/deliveries`)),
    404: () => webhooksCall("GET", `/v1/webhooks/${UNKNOWN}/deliveries`),
    422: () => webhooksCall("GET", "/v1/webhooks/not-a-uuid/deliveries"),
  },
  getWebhookDelivery: {
    200: staged(failedDelivery, (path) => webhooksCall("GET", path)),
    404: async () =>
      webhooksCall("GET", `/v1/webhooks/${await subscription()}/deliveries/${UNKNOWN}`),
    422: () => webhooksCall("GET", `/v1/webhooks/${UNKNOWN}/deliveries/not-a-uuid`),
  },
  redeliverWebhookDelivery: {
    202: staged(failedDelivery, (path) => webhooksCall("POST", `${path}/redeliver`)),
    404: async () =>
      webhooksCall("POST", `/v1/webhooks/${await subscription()}/deliveries/${UNKNOWN}/redeliver`),
    // Only a failed or dead delivery starts a new round.
    409: async () => {
      const sub = await subscription();
      const id = await delivery(sub, "succeeded");
      return webhooksCall("POST", `/v1/webhooks/${sub}/deliveries/${id}/redeliver`);
    },
    422: () => webhooksCall("POST", `/v1/webhooks/${UNKNOWN}/deliveries/not-a-uuid/redeliver`),
  },
  recoverWebhookDeliveries: {
    // The window's start 5 s inside the retention period (30 days): accepted.
    202: staged(subscription, (id) =>
      webhooksCall("POST", `/v1/webhooks/${id}/recover`, { body: { since: daysAgo(30, 5_000) } }),
    ),
    404: () =>
      webhooksCall("POST", `/v1/webhooks/${UNKNOWN}/recover`, { body: { since: daysAgo(1) } }),
    409: async () =>
      webhooksCall("POST", `/v1/webhooks/${await subscription(false)}/recover`, {
        body: { since: daysAgo(1) },
      }),
    // A millisecond before the retention period: refused, naming `since`.
    422: async () => {
      const answer = await webhooksCall("POST", `/v1/webhooks/${await subscription()}/recover`, {
        body: { since: daysAgo(30, -1) },
      });
      expect(answer.body.error?.details).toEqual([
        { field: "since", message: expect.stringMatching(/retention period/) },
      ]);
      return answer;
    },
  },
  rotateWebhookSecret: {
    200: staged(subscription, (id) => webhooksCall("POST", `/v1/webhooks/${id}/rotate-secret`)),
    404: () => webhooksCall("POST", `/v1/webhooks/${UNKNOWN}/rotate-secret`),
    422: () => webhooksCall("POST", "/v1/webhooks/not-a-uuid/rotate-secret"),
  },
  testWebhook: {
    202: staged(subscription, (id) => webhooksCall("POST", `/v1/webhooks/${id}/test`)),
    404: () => webhooksCall("POST", `/v1/webhooks/${UNKNOWN}/test`),
    409: async () => webhooksCall("POST", `/v1/webhooks/${await subscription(false)}/test`),
    422: () => webhooksCall("POST", "/v1/webhooks/not-a-uuid/test"),
  },
};

// Rows from the document

type Declared = { status: number; codes: string[] };

/** The statuses the document declares for an operation, with their `error.code` values. */
function declared(op: OperationSpec): Declared[] {
  const responses = (DOCUMENT.paths[op.path]?.[op.method] as { responses: Record<string, unknown> })
    .responses;
  return Object.entries(responses).map(([status, response]) => {
    const ref = (response as { $ref?: string }).$ref;
    const resolved = (
      ref
        ? (DOCUMENT.components.responses as Record<string, unknown>)[ref.split("/").pop()!]
        : response
    ) as { content?: Record<string, { schema?: unknown }> };
    const schema = JSON.stringify(resolved.content?.["application/json"]?.schema ?? {});
    const codes = /"code":\{"enum":(\[[^\]]*\])/.exec(schema)?.[1];
    return { status: Number(status), codes: codes ? (JSON.parse(codes) as string[]) : [] };
  });
}

/**
 * A status status-table.test.ts drives on every operation of the kind: the kind's own (its codes
 * all the kind's), except 500, which needs a request that reaches a dependency: this table's.
 */
function generic(op: OperationSpec, { status, codes }: Declared): boolean {
  const base = baseErrors(op.auth)[status];
  return status !== 500 && base !== undefined && codes.every((c) => base.includes(c));
}

const ROWS = OPERATIONS.flatMap((op) =>
  declared(op)
    .filter((d) => !generic(op, d))
    .map((d) => ({
      op,
      ...d,
      name: `${op.operationId} ${op.method.toUpperCase()} ${op.path} → ${d.status}`,
    })),
);

/** The operation's request that succeeds: what the 500 rows send once the stores are broken. */
function successOf(op: OperationSpec): Staged | undefined {
  const own = TABLE[op.operationId] ?? {};
  const status = Object.keys(own)
    .map(Number)
    .find((s) => s < 300);
  const row = status === undefined ? undefined : own[status];
  return row === undefined || typeof row === "string" ? undefined : stagesOf(row);
}

function expectAnswer(op: OperationSpec, { status, codes }: Declared, answer: Answer): void {
  const what = `${op.operationId} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
  expect(answer.status, what).toBe(status);
  if ("clientCredentials" in op.auth && status >= 400) {
    // RFC 6749 bodies: the response's description names the `error` values of its status.
    const response = (DOCUMENT.paths[op.path]?.[op.method] as { responses: Record<string, object> })
      .responses[String(status)] as { description: string };
    expect(response.description, what).toContain(`\`${String(answer.body.error)}\``);
    return;
  }
  // An error answers one of the codes this row adds to those of the kind.
  const base = baseErrors(op.auth)[status] ?? [];
  const own = codes.filter((c) => !base.includes(c));
  if (codes.length > 0)
    expect(own.length > 0 ? own : codes, what).toContain(answer.body.error?.code);
}

describe("operation statuses (production's document)", () => {
  it("has a row for every status the document declares, and none it does not", () => {
    // A 500 is driven by the operation's 2xx request once the stores are broken, or has a reason.
    const present = (r: (typeof ROWS)[number]) =>
      TABLE[r.op.operationId]?.[r.status] !== undefined ||
      (r.status === 500 && successOf(r.op) !== undefined);
    expect(ROWS.filter((r) => !present(r)).map((r) => r.name)).toEqual([]);
    const rows = new Set(ROWS.map((r) => `${r.op.operationId} ${r.status}`));
    const extra = Object.entries(TABLE).flatMap(([id, statuses]) =>
      Object.keys(statuses)
        .filter((s) => !rows.has(`${id} ${s}`))
        .map((s) => `${id} ${s}`),
    );
    expect(extra).toEqual([]);
  });

  it("the sandbox's document declares the same statuses for the operations it has", () => {
    const sandbox = readOpenApiDocument("sandbox");
    for (const op of OPERATIONS) {
      const there = sandbox.paths[op.path]?.[op.method] as { responses: object } | undefined;
      if (!there) continue;
      const here = DOCUMENT.paths[op.path]?.[op.method] as { responses: object };
      expect(Object.keys(there.responses), op.operationId).toEqual(Object.keys(here.responses));
    }
  });

  const driven = ROWS.filter((r) => r.status !== 500);
  it.each(driven.map((r) => [r.name, r] as const))("%s", async (_name, row) => {
    const entry = TABLE[row.op.operationId]![row.status]!;
    // Only a 500 may be argued away, and the fault rows below prove the argument.
    if (typeof entry === "string") throw new Error(`${row.name}: a reason, not a request`);
    const { prepare, send } = stagesOf(entry);
    expectAnswer(row.op, row, await send(await prepare()));
  });

  describe("500 on an unexpected fault: the stores' tables dropped", () => {
    const faults = ROWS.filter((r) => r.status === 500);
    const prepared = new Map<string, unknown>();
    beforeAll(async () => {
      for (const row of faults)
        prepared.set(row.op.operationId, await successOf(row.op)?.prepare());
      const legacy = await createConnection({ uri: legacyDb.url });
      try {
        await legacy.query(
          "DROP TABLE tbl_vacature, tbl_functie, tbl_provincie, tbl_praktijk, crm_bedrijf",
        );
      } finally {
        await legacy.end();
      }
      // Fresh read apps: the first ones hold the metadata they read (cached until a restart).
      stale.push(vacancies, practices);
      [vacancies, practices] = await Promise.all([
        startVacancies({ legacyUrl: legacyDb.url }),
        startPractices({
          legacyUrl: legacyDb.url,
          env: { ENVIRONMENT: "production" },
          crmMirror: new PgCrmMirrorStore(practicesPool, { now: Date.now }),
          issuer: practices.issuer,
        }),
      ]);
      await Promise.all([
        auth.pool.query("DROP SCHEMA auth CASCADE"),
        practicesPool.query("DROP SCHEMA practices CASCADE"),
        identity.pool.query("DROP SCHEMA identity CASCADE"),
        webhooks.pool.query("DROP SCHEMA webhooks CASCADE"),
      ]);
    });

    it.each(faults.map((r) => [r.name, r] as const))("%s", async (_name, row) => {
      const success = successOf(row.op);
      expect(success, `${row.op.operationId}: no 2xx request to send`).toBeDefined();
      const answer = await success!.send(prepared.get(row.op.operationId));
      // An operation whose 500 cannot happen answers as before, every store gone: the proof.
      if (typeof TABLE[row.op.operationId]?.[500] === "string")
        expect(answer.status, row.op.operationId).toBeLessThan(300);
      else expectAnswer(row.op, row, answer);
    });
  });
});
