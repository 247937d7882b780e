/**
 * What the hostile suite runs against: the `npm start` stack (sandbox) in its own databases, NATS
 * namespace and ports, plus the production-only routes (CRM mirror, application submission) as
 * in-process production instances of practices and identity on the SAME stores, so the stored-data
 * check covers them too. A little real data (one application) is created before the snapshot, so
 * reads by existing ids are exercised as well.
 */
import { createTokenVerifier } from "@svc/auth";
import { createLegacyDb, createPgPool, type LegacyDb } from "@svc/db";
import { connectNats, drainNats, names, type NatsConnection } from "@svc/messaging";
import {
  createTestIssuer,
  silentLogger,
  startApp,
  TEST_AUDIENCE,
  TEST_ISSUER,
  type StartedApp,
} from "@svc/testing";
import { createApp as createPracticesApp } from "../../services/practices/src/app.ts";
import { loadConfig as loadPracticesConfig } from "../../services/practices/src/config.ts";
import { PgCrmMirrorStore } from "../../services/practices/src/store/pg-crm-mirror-store.ts";
import { MysqlPracticeSource } from "../../services/practices/src/source/mysql-practice-source.ts";
import { createApp as createIdentityApp } from "../../services/identity/src/app.ts";
import { loadConfig as loadIdentityConfig } from "../../services/identity/src/config.ts";
import { NatsVacancyDirectory } from "../../services/identity/src/messaging/nats-vacancy-directory.ts";
import {
  startPrivateStack,
  type PrivateStack,
  type PrivateStackOptions,
} from "../support/private-stack.ts";
import {
  snapshotDifferences,
  snapshotMysql,
  snapshotPg,
  type StoreSnapshot,
} from "../support/store-snapshot.ts";
import type { Target } from "./endpoints.ts";
import type { GenerationContext } from "./families.ts";
import type { RenderContext, Tokens } from "./requests.ts";

export interface World {
  stack: PrivateStack;
  render: RenderContext;
  generation: GenerationContext;
  snapshot(): Promise<StoreSnapshot>;
  /**
   * Waits until background work (change detection baselines, the outbox relay) stops changing the
   * stores.
   */
  settledSnapshot(timeoutMs?: number): Promise<StoreSnapshot>;
  close(): Promise<void>;
}

/** Columns background work advances by itself; every other column of every table is compared. */
const BACKGROUND_CLOCKS = {
  change_state: ["seen_at"],
  change_cursor: ["modified_after_local", "swept_at", "updated_at"],
  outbox: ["sent_at"],
};

async function json<T>(url: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

async function until<T>(
  what: string,
  timeoutMs: number,
  attempt: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await attempt();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `${what} did not happen within ${timeoutMs} ms${last ? ` (${String(last)})` : ""}`,
  );
}

async function gatewayTokens(stack: PrivateStack): Promise<Tokens> {
  const basic = Buffer.from(
    `${encodeURIComponent(stack.demoClient.clientId)}:${encodeURIComponent(stack.demoClient.clientSecret)}`,
  ).toString("base64");
  const token = async (scope?: string) => {
    const body = new URLSearchParams({
      grant_type: "client_credentials",
      ...(scope ? { scope } : {}),
    });
    const res = await json<{ access_token: string }>(`${stack.baseUrl}/oauth/token`, {
      method: "POST",
      headers: {
        authorization: `Basic ${basic}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body,
    });
    if (res.status !== 200)
      throw new Error(`token request for ${scope ?? "every scope"} answered ${res.status}`);
    return res.body.access_token;
  };
  const all = await token();
  const narrow = new Map<string, string>();
  for (const scope of ["vacancies:read", "webhooks:read"]) narrow.set(scope, await token(scope));
  return { all, only: (scope) => narrow.get(scope) ?? all };
}

/** One application through the public API (its candidate and recruitment case come with it). */
async function createRealData(
  stack: PrivateStack,
  token: string,
): Promise<GenerationContext["realIds"]> {
  const auth = { authorization: `Bearer ${token}`, accept: "application/json" };
  const vacancies = await json<{ data: Array<{ uuid: string }> }>(
    `${stack.baseUrl}/v1/vacancies?per_page=5`,
    { headers: auth },
  );
  const practices = await json<{ data: Array<{ practice_id: string }> }>(
    `${stack.baseUrl}/v1/practices?per_page=5`,
    { headers: auth },
  );
  const vacancy = vacancies.body.data[0]?.uuid;
  if (!vacancy) throw new Error("the sandbox has no vacancies");
  const created = await json<{ data: { application_uuid: string; candidate_uuid: string } }>(
    `${stack.baseUrl}/v1/applications`,
    {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({
        vacancy_uuid: vacancy,
        candidate: { email: "hostile.setup@voorbeeld.be", phone: null },
        consent: true,
      }),
    },
  );
  if (created.status !== 201)
    throw new Error(`creating the setup application answered ${created.status}`);
  const cases = await json<{ data: Array<{ recruitment_case_uuid: string }> }>(
    `${stack.baseUrl}/v1/recruitment-cases`,
    { headers: auth },
  );
  return {
    vacancy: vacancies.body.data.map((v) => v.uuid),
    practice: practices.body.data.map((p) => p.practice_id),
    application: [created.body.data.application_uuid],
    candidate: [created.body.data.candidate_uuid],
    "recruitment-case": cases.body.data.map((c) => c.recruitment_case_uuid),
  };
}

interface Production {
  practices: StartedApp;
  identity: StartedApp;
  tokens: Tokens;
  close(): Promise<void>;
}

/**
 * Production instances of practices (CRM mirror) and identity (submission) on the stack's stores,
 * trusting a test issuer.
 */
async function startProduction(stack: PrivateStack): Promise<Production> {
  const issuer = await createTestIssuer();
  const verify = createTokenVerifier({
    keys: issuer.keys,
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
  });
  const practicesPool = createPgPool({
    url: stack.pgUrl,
    schema: "practices",
    applicationName: "hostile-practices",
  });
  const legacy: LegacyDb = createLegacyDb({ url: stack.legacyUrl });
  const practices = await startApp(
    createPracticesApp({
      config: loadPracticesConfig({ ENVIRONMENT: "production" }),
      logger: silentLogger(),
      verify,
      practices: new MysqlPracticeSource(legacy),
      crmMirror: new PgCrmMirrorStore(practicesPool, { now: Date.now }),
      now: Date.now,
    }),
  );
  const identityPool = createPgPool({
    url: stack.pgUrl,
    schema: "identity",
    applicationName: "hostile-identity",
  });
  const nc: NatsConnection = await connectNats({
    servers: stack.natsUrl,
    name: "hostile-identity",
    logger: silentLogger(),
  });
  const identityConfig = loadIdentityConfig({
    ENVIRONMENT: "production",
    IDENTITY_PEPPER: stack.identityPepper,
    NATS_NAMESPACE: stack.natsNamespace,
    PUBLIC_BASE_URL: stack.baseUrl,
  });
  const identity = await startApp(
    createIdentityApp({
      config: identityConfig,
      logger: silentLogger(),
      verify,
      pool: identityPool,
      vacancies: new NatsVacancyDirectory({
        nc,
        subject: names(stack.natsNamespace).rpc.vacancyExists,
        timeoutMs: identityConfig.VACANCY_LOOKUP_TIMEOUT_MS,
      }),
      now: () => new Date(),
    }),
  );
  const all = await issuer.mint({
    clientId: "hostile-crm-mirror",
    scope: "crm-mirror:write applications:write applications:read practices:read",
  });
  const narrow = new Map<string, string>();
  for (const scope of ["vacancies:read", "webhooks:read"])
    narrow.set(scope, await issuer.mint({ clientId: "hostile-narrow", scope }));
  return {
    practices,
    identity,
    tokens: { all, only: (scope) => narrow.get(scope) ?? all },
    async close() {
      await practices.close();
      await identity.close();
      await drainNats(nc);
      await legacy.close().catch(() => undefined);
      await practicesPool.end();
      await identityPool.end();
    },
  };
}

export async function startWorld(options: PrivateStackOptions = {}): Promise<World> {
  const stack = await startPrivateStack(options);
  let production: Production | undefined;
  try {
    for (const p of stack.processes) {
      if (p.internalPort !== null)
        await until(`${p.name} ready`, 60_000, async () =>
          (await fetch(`http://127.0.0.1:${p.internalPort}/readyz`)).ok ? true : undefined,
        );
    }
    const tokens = await gatewayTokens(stack);
    await until("an authenticated read", 30_000, async () =>
      (
        await fetch(`${stack.baseUrl}/v1/vacancies`, {
          headers: { authorization: `Bearer ${tokens.all}` },
        })
      ).status === 200
        ? true
        : undefined,
    );
    const realIds = await createRealData(stack, tokens.all);
    production = await startProduction(stack);
    const targets: Record<Target, number> = {
      gateway: stack.gatewayPort,
      "practices-production": production.practices.port,
      "identity-production": production.identity.port,
    };
    const snapshot = async () => ({
      ...(await snapshotPg(stack.pgUrl, { ignoreColumns: BACKGROUND_CLOCKS })),
      ...(await snapshotMysql(stack.mysqlUrl, stack.legacyDatabase)),
    });
    const started = production;
    return {
      stack,
      render: {
        ports: targets,
        tokens: {
          gateway: tokens,
          "practices-production": production.tokens,
          "identity-production": production.tokens,
        },
      },
      generation: {
        realIds,
        modifiedOn: new Date(Date.now() - 3_600_000).toISOString(),
        demoClientId: stack.demoClient.clientId,
      },
      snapshot,
      async settledSnapshot(timeoutMs = 60_000) {
        let previous = await snapshot();
        return until("a settled store", timeoutMs, async () => {
          await new Promise((r) => setTimeout(r, 1_000));
          const next = await snapshot();
          const same = snapshotDifferences(previous, next).length === 0;
          previous = next;
          return same ? next : undefined;
        });
      },
      async close() {
        await started.close().catch(() => undefined);
        await stack.stop();
      },
    };
  } catch (err) {
    await production?.close().catch(() => undefined);
    await stack.stop();
    throw err;
  }
}
