/**
 * Test wiring: a legacy database seeded with the sandbox generator (@svc/sandbox), the real app on
 * port 0 with a test token issuer and an injected clock, and a small authenticated GET helper.
 */
import { createTokenVerifier } from "@svc/auth";
import { createLegacyDb, type LegacyDb } from "@svc/db";
import { openServerConnection, seedDatabase } from "@svc/sandbox";
import {
  createTempMysqlDatabase,
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
import { loadConfig } from "../../src/config.ts";
import type { CrmMirrorStore } from "../../src/domain/ports.ts";
import type { PageMarkOptions } from "@svc/paging";
import type { Logger } from "@svc/logging";
import { MysqlPracticeSource } from "../../src/source/mysql-practice-source.ts";

/** The date the data set is seeded with, and the injected clock's calendar date in Brussels. */
export const TODAY = "2025-06-15";
/** 12:00 in Brussels (CEST, +02:00) on TODAY. */
export const NOW = Date.parse("2025-06-15T10:00:00Z");

export interface Envelope<T = unknown> {
  success: boolean;
  data: T;
  meta: {
    request_id: string;
    api_version: string;
    pagination?: { page: number; per_page: number; total: number; total_pages: number };
  };
  error?: { code: string; message: string; details?: Array<{ field: string; message: string }> };
}

/** A fresh legacy database holding the sandbox data set (scale 0 = the fixtures alone). */
export async function seedLegacy(scale: number, today = TODAY): Promise<TempDatabase> {
  const database = await createTempMysqlDatabase("legacy_t");
  const connection = await openServerConnection(testEnv.TEST_MYSQL_URL);
  try {
    await seedDatabase(connection, database.name, { seed: 7, scale, today }, "replace");
  } finally {
    await connection.end();
  }
  return database;
}

/** The read tests run in the sandbox, where the CRM mirror is never reached. */
const notHere = () => Promise.reject(new Error("the CRM mirror is not part of this test"));
export const unusedMirror: CrmMirrorStore = {
  apply: notHere,
  get: notHere,
  page: notHere,
  count: notHere,
};

export interface PracticesApp {
  app: StartedApp;
  issuer: TestIssuer;
  legacy: LegacyDb;
  /** GET with a token holding `scope` (default practices:read); `null` sends no token. */
  get<T = unknown>(path: string, scope?: string | null): Promise<JsonResponse<Envelope<T>>>;
  close(): Promise<void>;
}

export interface StartOptions {
  legacyUrl: string;
  now?: () => number;
  env?: Record<string, string>;
  crmMirror?: CrmMirrorStore;
  issuer?: TestIssuer;
  legacyTimeoutMs?: number;
  /** Page marks of the source (none by default: every page is cut from the start of the union). */
  marks?: Omit<PageMarkOptions, "now">;
  /** Wraps the page pool (e.g. to slow some statements down); default as is. */
  pagePool?: (db: LegacyDb) => LegacyDb;
  /** The pool for counts and page marks; default the page pool. */
  countDb?: LegacyDb;
  /** Where the app logs; silent by default. */
  logger?: Logger;
}

export async function startPractices(options: StartOptions): Promise<PracticesApp> {
  const issuer = options.issuer ?? (await createTestIssuer());
  const config = loadConfig({
    ENVIRONMENT: "sandbox",
    PRACTICE_TOTALS_CACHE_MS: "0",
    ...options.env,
  });
  const timeout = options.legacyTimeoutMs;
  const now = options.now ?? (() => NOW);
  const legacy = createLegacyDb({
    url: options.legacyUrl,
    connectTimeoutMs: timeout,
    queryTimeoutMs: timeout,
  });
  const verify = createTokenVerifier({
    keys: issuer.keys,
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
  });
  const handler = createApp({
    config,
    logger: options.logger ?? silentLogger(),
    verify,
    practices: new MysqlPracticeSource(options.pagePool?.(legacy) ?? legacy, {
      ...(options.marks ? { marks: { ...options.marks, now } } : {}),
      ...(options.countDb ? { countDb: options.countDb } : {}),
    }),
    crmMirror: options.crmMirror ?? unusedMirror,
    now,
  });
  const app = await startApp(handler);
  const tokens = new Map<string, Promise<string>>();
  const tokenFor = (scope: string) => {
    if (!tokens.has(scope)) tokens.set(scope, issuer.mint({ scope }));
    return tokens.get(scope) as Promise<string>;
  };
  return {
    app,
    issuer,
    legacy,
    async get<T>(path: string, scope: string | null = "practices:read") {
      const headers: Record<string, string> = { accept: "application/json" };
      if (scope !== null) headers.authorization = `Bearer ${await tokenFor(scope)}`;
      return fetchJson<Envelope<T>>(`${app.baseUrl}${path}`, { headers });
    },
    async close() {
      await app.close();
      await legacy.close().catch(() => undefined);
    },
  };
}
