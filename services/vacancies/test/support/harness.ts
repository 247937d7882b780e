import { createTokenVerifier } from "@svc/auth";
import {
  createConnection as createMysqlConnection,
  type Connection as MysqlConnection,
} from "mysql2/promise";
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
import { MysqlVacancySource } from "../../src/source/mysql-vacancy-source.ts";
import type { Vacancy } from "../../src/domain/vacancy-catalogue.ts";

/** The date the sandbox is seeded with: "today"-relative fixtures (display dates) sit around it. */
export const TODAY = "2025-06-15";
/** 12:00 in Brussels on TODAY: the pinned clock of most tests. */
export const NOON_ON_TODAY = Date.parse("2025-06-15T10:00:00Z");
export const SEED = 1;

// Totals counted on every request, so a test that changes rows sees the new total at once; the
// totals cache itself is tested in vacancy-list-totals.test.ts.
export const config = loadConfig({ ENVIRONMENT: "sandbox", VACANCY_TOTALS_CACHE_MS: "0" });

/** Page marks for startVacancies (none unless asked for): rows between marks, their lifetime. */
export interface TestMarks {
  spacing: number;
  ttlMs: number;
}

/** A temporary legacy database with the sandbox data set (scale 0 = the fixtures only). */
export async function seededLegacyDatabase(scale: number): Promise<TempDatabase> {
  const database = await createTempMysqlDatabase("vac_t");
  const connection = await openServerConnection(testEnv.TEST_MYSQL_URL);
  try {
    await seedDatabase(connection, database.name, { seed: SEED, scale, today: TODAY }, "replace");
  } finally {
    await connection.end();
  }
  return database;
}

export interface RunningVacancies {
  app: StartedApp;
  legacy: LegacyDb;
  /** A token with vacancies:read (or `scope`). */
  token(scope?: string): Promise<string>;
  /** GET with a vacancies:read token. */
  get<T = Envelope>(path: string): Promise<JsonResponse<T>>;
  close(): Promise<void>;
}

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

let issuer: TestIssuer | undefined;

/** The real app on port 0 over `legacyUrl`, with a pinned clock (or a moving one: a function). */
export async function startVacancies(options: {
  legacyUrl: string;
  now?: number | (() => number);
  timeoutMs?: number;
  config?: typeof config;
  earlyRows?: number;
  marks?: TestMarks;
  /** Wraps the page pool (e.g. to slow some statements down); default as is. */
  pagePool?: (db: LegacyDb) => LegacyDb;
  /** The pool for counts and page marks; default the page pool. */
  countDb?: LegacyDb;
}): Promise<RunningVacancies> {
  issuer ??= await createTestIssuer();
  const keys = issuer;
  const legacy = createLegacyDb({
    url: options.legacyUrl,
    connectTimeoutMs: options.timeoutMs ?? 2_000,
    queryTimeoutMs: options.timeoutMs ?? 5_000,
  });
  const pinned = options.now ?? NOON_ON_TODAY;
  const now = typeof pinned === "function" ? pinned : () => pinned;
  const app = await startApp(
    createApp({
      config: options.config ?? config,
      logger: silentLogger(),
      verify: createTokenVerifier({
        keys: keys.keys,
        issuer: TEST_ISSUER,
        audience: TEST_AUDIENCE,
      }),
      vacancies: new MysqlVacancySource(options.pagePool?.(legacy) ?? legacy, config.TIME_ZONE, {
        earlyRows: options.earlyRows,
        marks: options.marks && { ...options.marks, now },
        ...(options.countDb ? { countDb: options.countDb } : {}),
      }),
      now,
    }),
  );
  const token = (scope = "vacancies:read") => keys.mint({ scope });
  const readToken = await token();
  return {
    app,
    legacy,
    token,
    get: (path) =>
      fetchJson(`${app.baseUrl}${path}`, {
        headers: { authorization: `Bearer ${readToken}`, accept: "application/json" },
      }),
    close: async () => {
      await app.close();
      await legacy.close().catch(() => undefined);
    },
  };
}

/** Every page of a list query at `perPage`, in order, checking each page's pagination block. */
export async function walkAll(
  run: RunningVacancies,
  query: string,
  perPage: number,
): Promise<{ items: Vacancy[]; total: number; pages: number }> {
  const items: Vacancy[] = [];
  const sep = query === "" ? "" : "&";
  for (let page = 1; ; page += 1) {
    const res = await run.get<Envelope<Vacancy[]>>(
      `/v1/vacancies?${query}${sep}per_page=${perPage}&page=${page}`,
    );
    if (res.status !== 200) throw new Error(`page ${page}: ${res.status} ${res.text}`);
    const p = res.body.meta.pagination;
    if (!p) throw new Error("no pagination block");
    items.push(...res.body.data);
    if (page >= p.total_pages) return { items, total: p.total, pages: p.total_pages };
  }
}

/** The items' uuids, sorted, for set comparisons. */
export const uuidsOf = (items: ReadonlyArray<{ uuid: string }>): string[] =>
  items.map((v) => v.uuid).sort();
/** The uuids in list order. */
export const inOrder = (items: ReadonlyArray<{ uuid: string }>): string[] =>
  items.map((v) => v.uuid);

/**
 * A small legacy database (scale 0.1) that a test may change through `writer`, served twice: `run`
 * with the plans under test (`options`), `exact` with every page on the sorted deep-page plans.
 */
export async function comparedPlans(
  options: Omit<Parameters<typeof startVacancies>[0], "legacyUrl">,
): Promise<{
  database: TempDatabase;
  writer: MysqlConnection;
  run: RunningVacancies;
  exact: RunningVacancies;
  close: () => Promise<void>;
}> {
  const database = await seededLegacyDatabase(0.1);
  const writer = await createMysqlConnection({ uri: database.url });
  const run = await startVacancies({ ...options, legacyUrl: database.url });
  const exact = await startVacancies({ legacyUrl: database.url, now: options.now, earlyRows: 0 });
  return {
    database,
    writer,
    run,
    exact,
    close: async () => {
      await run.close();
      await exact.close();
      await writer.end();
      await database.drop();
    },
  };
}
