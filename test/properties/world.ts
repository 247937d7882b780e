/**
 * What the write-operation properties run against: the real HTTP services with their real
 * PostgreSQL stores, each in its own temporary database, in production mode (every write
 * operation exists; webhooks runs as the sandbox, which has the same subscription operations and
 * lets the test resolver answer): practices (the CRM mirror), identity (applications and the submission, the
 * vacancy lookup answered over real NATS by the identity tests' stand-in for the vacancies
 * service) and webhooks (subscriptions; host names resolve to one public address, since the tests
 * have no DNS of their own).
 */
import type pg from "pg";
import { createPgPool, runMigrations } from "@svc/db";
import {
  createTempPgDatabase,
  fetchJson,
  type JsonResponse,
  type TempDatabase,
} from "@svc/testing";
import { loadConfig as loadPracticesConfig } from "../../services/practices/src/config.ts";
import { MIGRATIONS_FOLDER as PRACTICES_MIGRATIONS } from "../../services/practices/src/store/migrations.ts";
import { PgCrmMirrorStore } from "../../services/practices/src/store/pg-crm-mirror-store.ts";
import {
  startPractices,
  type PracticesApp,
} from "../../services/practices/test/support/harness.ts";
import {
  startHarness as startIdentity,
  type Harness as IdentityHarness,
} from "../../services/identity/test/support/harness.ts";
import {
  startHarness as startWebhooks,
  type Harness as WebhooksHarness,
} from "../../services/webhooks/test/support/harness.ts";

export interface Answer {
  status: number;
  body: {
    success?: boolean;
    data?: unknown;
    error?: { code: string; details?: Array<{ field: string; message: string }> };
  };
}

export interface Request {
  method: string;
  /** The path as sent (already percent-encoded). */
  path: string;
  headers?: Record<string, string>;
  /** A JSON value, sent as JSON; undefined sends no body. */
  body?: unknown;
}

export interface World {
  /** The clock the mirror bounds modified_on by (the real one). */
  now: number;
  practices: { app: PracticesApp; pool: pg.Pool; token: string };
  identity: IdentityHarness;
  webhooks: WebhooksHarness;
  send(
    target: "practices" | "identity" | "webhooks",
    request: Request,
    client?: string,
  ): Promise<Answer>;
  close(): Promise<void>;
}

const IDENTITY_SCOPES = "applications:read applications:write";
const WEBHOOK_SCOPES = "webhooks:read webhooks:write";

export async function startWorld(): Promise<World> {
  const closers: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const step of closers.reverse()) await step().catch(() => undefined);
  };
  try {
    const database: TempDatabase = await createTempPgDatabase("props");
    closers.push(() => database.drop());
    const pool = createPgPool({ url: database.url, schema: "practices", applicationName: "props" });
    closers.push(() => pool.end());
    await runMigrations(pool, { schema: "practices", migrationsFolder: PRACTICES_MIGRATIONS });
    const practices = await startPractices({
      legacyUrl: loadPracticesConfig({}).LEGACY_DATABASE_URL,
      env: { ENVIRONMENT: "production" },
      now: Date.now,
      crmMirror: new PgCrmMirrorStore(pool, { now: Date.now }),
    });
    closers.push(() => practices.close());
    const practicesToken = await practices.issuer.mint({
      scope: "crm-mirror:write",
      clientId: "crm-mirror",
    });
    const identity = await startIdentity({ environment: "production" });
    closers.push(() => identity.close());
    const webhooks = await startWebhooks({
      resolver: { resolve: async () => [{ address: "93.184.215.14", family: 4 }] },
    });
    closers.push(() => webhooks.close());

    const baseUrl = {
      practices: practices.app.baseUrl,
      identity: identity.baseUrl,
      webhooks: webhooks.app.baseUrl,
    };
    const tokenFor = async (target: keyof typeof baseUrl, client: string) =>
      target === "practices"
        ? practicesToken
        : target === "identity"
          ? identity.token(IDENTITY_SCOPES, client)
          : webhooks.issuer.mint({ clientId: client, scope: WEBHOOK_SCOPES });
    const tokens = new Map<string, Promise<string>>();
    return {
      now: Date.now(),
      practices: { app: practices, pool, token: practicesToken },
      identity,
      webhooks,
      async send(target, request, client = "property-client") {
        const key = `${target} ${client}`;
        if (!tokens.has(key)) tokens.set(key, tokenFor(target, client));
        const headers: Record<string, string> = {
          authorization: `Bearer ${await tokens.get(key)}`,
          accept: "application/json",
          ...request.headers,
        };
        if (request.body !== undefined) headers["content-type"] = "application/json";
        const res: JsonResponse<Answer["body"]> = await fetchJson(
          `${baseUrl[target]}${request.path}`,
          {
            method: request.method,
            headers,
            ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
          },
        );
        return { status: res.status, body: res.body ?? {} };
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
