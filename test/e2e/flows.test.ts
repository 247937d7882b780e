/**
 * End-to-end flows against the whole system started the way `npm start` starts it (every service
 * its own process behind the gateway), seen only from outside: an independent OAuth client
 * (oauth4webapi), HTTP through the gateway, a loopback HTTPS webhook receiver that verifies
 * signatures itself, the legacy database written the way the legacy application writes it, and
 * the operator's `npm run clients` CLI.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createConnection } from "mysql2/promise";
import * as oauth from "oauth4webapi";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestCa,
  fetchJson,
  startHttpsReceiver,
  waitFor,
  type HttpsReceiver,
  type JsonResponse,
  type ReceivedRequest,
  type TestCa,
} from "@svc/testing";
import { localOfInstant } from "@svc/time";
import { startPrivateStack, type PrivateStack } from "../support/private-stack.ts";
import {
  envelopeProblems,
  errorProblems,
  eventProblems,
  legacyNamesIn,
  runClientsCli,
  UUID,
  verifyDelivery,
  type Envelope,
  type VerifiedDelivery,
} from "./flow-support.ts";

const SCOPES = [
  "practices:read",
  "vacancies:read",
  "applications:read",
  "applications:write",
  "webhooks:read",
  "webhooks:write",
];
const HOOK_PATH = "/hooks/e2e";
/**
 * Documented in services/auth/README.md: a revoked client's token gets 401 everywhere within 2 s.
 */
const REVOCATION_BOUND_MS = 2_000;
// The token endpoint is plain HTTP on loopback here; oauth4webapi insists on https unless told.
const insecure = { [oauth.allowInsecureRequests]: true };

let ca: TestCa;
let receiver: HttpsReceiver;
let stack: PrivateStack;
let as: oauth.AuthorizationServer;
let client: { id: string; secret: string };
let token: string;
let webhook: { uuid: string; secret: string };
/** Read in flow 1, used by the later flows. */
let vacancies: Array<{
  uuid: string;
  title: string | null;
  updated_at: string | null;
  practice: { legacy_reference: string | null };
}>;

async function api(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; bearer?: string } = {},
): Promise<JsonResponse<Envelope>> {
  const headers: Record<string, string> = {
    accept: "application/json",
    authorization: `Bearer ${options.bearer ?? token}`,
    ...options.headers,
  };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  return fetchJson<Envelope>(path.startsWith("http") ? path : `${stack.baseUrl}${path}`, {
    method,
    headers,
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
}

async function tokenRequest(clientId: string, secret: string, scope?: string): Promise<Response> {
  return oauth.clientCredentialsGrantRequest(
    as,
    { client_id: clientId },
    oauth.ClientSecretBasic(secret),
    scope === undefined ? {} : { scope },
    insecure,
  );
}

/**
 * The stack's public base URL: `npm start` serves http://localhost:<gateway port>
 * (tools/config.ts).
 */
const publicUrl = (path: string) => `http://localhost:${stack.gatewayPort}${path}`;

function deliveriesFor(type: string, entityId: string): ReceivedRequest[] {
  return receiver.received(HOOK_PATH).filter((r) => {
    try {
      const body = JSON.parse(r.rawBody.toString("utf8")) as {
        event_type?: string;
        entity?: { id?: string };
      };
      return body.event_type === type && body.entity?.id === entityId;
    } catch {
      return false;
    }
  });
}

async function awaitDelivery(
  type: string,
  entityId: string,
  timeoutMs = 30_000,
): Promise<VerifiedDelivery> {
  await waitFor(
    `${type} for ${entityId} at the receiver`,
    () => deliveriesFor(type, entityId).length > 0,
    timeoutMs,
  );
  return verifyDelivery(deliveriesFor(type, entityId)[0]!, webhook.secret);
}

async function pgQuery(sql: string): Promise<number> {
  const c = new pg.Client({ connectionString: stack.pgUrl });
  await c.connect();
  try {
    return (await c.query(sql)).rowCount ?? 0;
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  ca = createTestCa();
  receiver = await startHttpsReceiver({ key: ca.serverKey, cert: ca.serverCert });
  stack = await startPrivateStack({
    env: {
      // The dispatcher may deliver to this loopback receiver, whose certificate our test CA signed.
      WEBHOOK_ALLOW_LOOPBACK: "true",
      WEBHOOK_EXTRA_CA_FILE: ca.caFile,
      WEBHOOK_RETRY_SCHEDULE_MS: "250,500,1000,2000,4000",
      DETECTOR_INCREMENTAL_MS: "500",
      RELAY_POLL_MS: "100",
    },
  });
  as = { issuer: publicUrl(""), token_endpoint: `${stack.baseUrl}/oauth/token` };
  const created = await runClientsCli(cliEnv(), [
    "create",
    "--name",
    "e2e flows",
    "--scopes",
    SCOPES.join(","),
    "--json",
  ]);
  expect(created.code, created.stderr).toBe(0);
  const out = JSON.parse(created.stdout) as { client: { id: string }; client_secret: string };
  client = { id: out.client.id, secret: out.client_secret };
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  ca?.dispose();
});

function cliEnv(): Record<string, string> {
  return {
    DATABASE_URL: stack.pgUrl,
    NATS_SERVERS: stack.natsUrl,
    NATS_NAMESPACE: stack.natsNamespace,
    ENVIRONMENT: "sandbox",
  };
}

describe("end-to-end flows through the gateway", () => {
  it("1. issues a token to an independent OAuth client and serves practices and vacancies in the contract's shape", async () => {
    const response = await tokenRequest(client.id, client.secret, SCOPES.join(" "));
    expect(response.headers.get("cache-control")).toContain("no-store");
    const tokens = await oauth.processClientCredentialsResponse(
      as,
      { client_id: client.id },
      response,
    );
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope?.split(" ").sort()).toEqual([...SCOPES].sort());
    token = tokens.access_token;

    const practices = await api("GET", "/v1/practices?per_page=5");
    expect(practices.status).toBe(200);
    expect(envelopeProblems(practices.body, true)).toEqual([]);
    expect(practices.body.data.length).toBeGreaterThan(0);
    expect(practices.body.meta.pagination).toMatchObject({ page: 1, per_page: 5 });
    const practiceId = practices.body.data[0].practice_id as string;
    const practice = await api("GET", `/v1/practices/${encodeURIComponent(practiceId)}`);
    expect(practice.status).toBe(200);
    expect(envelopeProblems(practice.body, false)).toEqual([]);
    expect(practice.body.data).toEqual(practices.body.data[0]);

    const list = await api("GET", "/v1/vacancies?per_page=100");
    expect(list.status).toBe(200);
    expect(envelopeProblems(list.body, true)).toEqual([]);
    expect(list.body.data.length).toBeGreaterThan(1);
    vacancies = list.body.data;
    const vacancy = await api("GET", `/v1/vacancies/${vacancies[0]!.uuid}`);
    expect(vacancy.status).toBe(200);
    expect(envelopeProblems(vacancy.body, false)).toEqual([]);
    expect(vacancy.body.data).toEqual(vacancies[0]);

    for (const r of [practices, practice, list, vacancy]) expect(legacyNamesIn(r.text)).toEqual([]);
  });

  it("2. subscribes a webhook to an HTTPS receiver and shows its secret exactly once", async () => {
    const created = await api("POST", "/v1/webhooks", {
      body: {
        url: receiver.url(HOOK_PATH),
        event_types: ["vacancy.updated", "application.created"],
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(envelopeProblems(created.body, false)).toEqual([]);
    expect(created.body.data).toMatchObject({ url: receiver.url(HOOK_PATH), enabled: true });
    expect([...created.body.data.event_types].sort()).toEqual([
      "application.created",
      "vacancy.updated",
    ]);
    expect(created.body.data.webhook_uuid).toMatch(UUID);
    expect(created.body.data.secret).toEqual(expect.any(String));
    expect(created.body.data.secret.length).toBeGreaterThanOrEqual(32);
    webhook = { uuid: created.body.data.webhook_uuid, secret: created.body.data.secret };

    const read = await api("GET", `/v1/webhooks/${webhook.uuid}`);
    expect(read.status).toBe(200);
    expect(envelopeProblems(read.body, false)).toEqual([]);
    expect(read.body.data.webhook_uuid).toBe(webhook.uuid);
    expect(read.body.data).not.toHaveProperty("secret");
    const listed = await api("GET", "/v1/webhooks");
    expect(listed.status).toBe(200);
    expect(envelopeProblems(listed.body, true)).toEqual([]);
    expect(listed.body.data.map((s: { webhook_uuid: string }) => s.webhook_uuid)).toEqual([
      webhook.uuid,
    ]);
    for (const r of [read, listed]) expect(r.text).not.toContain(webhook.secret);
  });

  it("3. turns a change in the legacy database into a signed vacancy.updated whose links.self shows the new state", async () => {
    const target = vacancies[0]!;
    // Until the detector recorded its baseline, a change would be absorbed into it without an
    // event.
    await waitFor(
      "the vacancy detector's baseline",
      async () => (await pgQuery("SELECT 1 FROM vacancies.change_cursor").catch(() => 0)) > 0,
      60_000,
    );
    const title = `E2E heading ${randomBytes(4).toString("hex")}`;
    const writtenAt = Date.now();
    // As the legacy application saves a vacancy: new public heading, modification time in its
    // wall clock (Europe/Brussels, shared/legacy/README.md).
    const legacy = await createConnection({ uri: stack.legacyUrl });
    try {
      const [result] = await legacy.query(
        "UPDATE tbl_vacature SET kop_publiek = ?, gewijzigd_op = ? WHERE uuid = ?",
        [title, localOfInstant(writtenAt, "Europe/Brussels"), target.uuid],
      );
      expect((result as { affectedRows: number }).affectedRows).toBe(1);
    } finally {
      await legacy.end();
    }

    const delivery = await awaitDelivery("vacancy.updated", target.uuid);
    expect(Math.abs(delivery.timestamp - Date.now() / 1000)).toBeLessThanOrEqual(60);
    expect(
      eventProblems(
        delivery.payload,
        "vacancy.updated",
        { type: "vacancy", id: target.uuid },
        publicUrl(`/v1/vacancies/${target.uuid}`),
      ),
    ).toEqual([]);

    const current = await api("GET", delivery.payload.links.self);
    expect(current.status).toBe(200);
    expect(envelopeProblems(current.body, false)).toEqual([]);
    expect(current.body.data.uuid).toBe(target.uuid);
    expect(current.body.data.title).toBe(title);
    expect(target.title).not.toBe(title);
    // DATETIME has whole seconds: the new updated_at is the second written above.
    expect(Math.abs(Date.parse(current.body.data.updated_at) - writtenAt)).toBeLessThan(1_000);
    expect(legacyNamesIn(current.text)).toEqual([]);
  });

  it("4. creates an application once per Idempotency-Key and delivers exactly one signed application.created", async () => {
    const vacancy = vacancies.find((v) => v.practice.legacy_reference !== null);
    expect(vacancy, "a vacancy naming its practice").toBeDefined();
    const key = randomUUID();
    const body = {
      vacancy_uuid: vacancy!.uuid,
      candidate: { email: `e2e-${randomBytes(4).toString("hex")}@example.be` },
      consent: true,
      entrypoint: "Vacature-pagina",
    };
    const first = await api("POST", "/v1/applications", {
      body,
      headers: { "idempotency-key": key },
    });
    expect(first.status, first.text).toBe(201);
    expect(envelopeProblems(first.body, false)).toEqual([]);
    const application = first.body.data;
    expect(application).toMatchObject({
      vacancy_uuid: vacancy!.uuid,
      practice_id: vacancy!.practice.legacy_reference,
      resolution: "resolved",
      consent_flag: true,
      application_created: true,
      candidate_created: true,
    });
    expect(application.application_uuid).toMatch(UUID);
    expect(first.text).not.toContain(body.candidate.email);

    const repeat = await api("POST", "/v1/applications", {
      body,
      headers: { "idempotency-key": key },
    });
    expect(repeat.status).toBe(201);
    expect(repeat.headers.get("idempotent-replayed")).toBe("true");
    expect(repeat.text).toBe(first.text);

    const delivery = await awaitDelivery("application.created", application.application_uuid);
    const self = publicUrl(`/v1/applications/${application.application_uuid}`);
    expect(
      eventProblems(
        delivery.payload,
        "application.created",
        { type: "application", id: application.application_uuid },
        self,
      ),
    ).toEqual([]);
    const current = await api("GET", delivery.payload.links.self);
    expect(current.status).toBe(200);
    expect(envelopeProblems(current.body, false)).toEqual([]);
    expect(current.body.data).toMatchObject({
      application_uuid: application.application_uuid,
      vacancy_uuid: vacancy!.uuid,
      candidate_uuid: application.candidate_uuid,
    });

    // A later application travels the same outbox → stream → dispatcher path; once its event has
    // arrived (plus a relay poll and a delivery's worth of slack), an event the replay had
    // produced would have arrived too.
    const later = await api("POST", "/v1/applications", {
      body: { ...body, candidate: { email: `e2e-${randomBytes(4).toString("hex")}@example.be` } },
      headers: { "idempotency-key": randomUUID() },
    });
    expect(later.status, later.text).toBe(201);
    await awaitDelivery("application.created", later.body.data.application_uuid);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(deliveriesFor("application.created", application.application_uuid)).toHaveLength(1);
    // The subscription's delivery records agree: two application.created deliveries, both
    // succeeded (recorded just after the receiver answered, hence the wait).
    let recorded: JsonResponse<Envelope> | undefined;
    const settled = (r: JsonResponse<Envelope>) =>
      r.status === 200 &&
      r.body.data.filter(
        (d: { event_type: string; status: string }) =>
          d.event_type === "application.created" && d.status !== "pending",
      ).length >= 2;
    await waitFor(
      "the delivery records",
      async () =>
        settled(
          (recorded = await api("GET", `/v1/webhooks/${webhook.uuid}/deliveries?per_page=100`)),
        ),
      15_000,
    ).catch(() => undefined);
    expect(envelopeProblems(recorded!.body, true)).toEqual([]);
    const applicationDeliveries = recorded!.body.data.filter(
      (d: { event_type: string }) => d.event_type === "application.created",
    );
    expect(applicationDeliveries.map((d: { status: string }) => d.status)).toEqual([
      "succeeded",
      "succeeded",
    ]);
  });

  it("5. opens a portal link through the gateway and shows the client's subscription and its deliveries behind the session cookie", async () => {
    const made = await api("POST", "/v1/webhooks/portal-sessions", {
      body: { read_only: true },
    });
    expect(made.status, made.text).toBe(201);
    const link = new URL(made.body.data.url as string);
    const opened = await fetch(`${stack.baseUrl}${link.pathname}${link.search}`, {
      redirect: "manual",
    });
    expect(opened.status).toBe(303);
    expect(opened.headers.get("location")).toBe("/portal/");
    expect(opened.headers.get("referrer-policy")).toBe("no-referrer");
    const portalCookie = /^portal_session=([^;]+)/.exec(
      opened.headers.get("set-cookie") ?? "",
    )![1]!;
    const portal = (path: string) =>
      fetchJson<Envelope>(`${stack.baseUrl}/portal/api${path}`, {
        headers: { cookie: `portal_session=${portalCookie}` },
      });

    const session = await portal("/session");
    expect(session.status).toBe(200);
    expect(session.body.data).toMatchObject({ client_id: client.id, read_only: true });
    const listed = await portal("/v1/webhooks");
    expect(listed.body.data.map((s: { webhook_uuid: string }) => s.webhook_uuid)).toEqual([
      webhook.uuid,
    ]);
    const deliveries = await portal(`/v1/webhooks/deliveries?status=succeeded`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.data.length).toBeGreaterThan(0);
    const page = await fetch(`${stack.baseUrl}/portal/`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");

    const reused = await fetch(`${stack.baseUrl}${link.pathname}${link.search}`, {
      redirect: "manual",
    });
    expect(reused.status).toBe(410);
  });

  it("6. refuses a revoked client's token at every service within the documented bound, and issues it no new one", async () => {
    const guarded = [
      "/v1/practices?per_page=1",
      "/v1/vacancies?per_page=1",
      "/v1/applications?per_page=1",
      "/v1/webhooks?per_page=1",
    ];
    for (const path of guarded) expect((await api("GET", path)).status, path).toBe(200);

    const revoked = await runClientsCli(cliEnv(), ["revoke", client.id, "--json"]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: client.id, state: "revoked" });
    const revokedAt = Date.now();

    const refusals = await Promise.all(
      guarded.map(async (path) => {
        for (;;) {
          const r = await api("GET", path);
          const ms = Date.now() - revokedAt;
          if (r.status === 401 || ms > 5 * REVOCATION_BOUND_MS) return { path, ms, r };
          expect(r.status, path).toBe(200);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }),
    );
    for (const { path, ms, r } of refusals) {
      expect(r.status, path).toBe(401);
      expect(ms, `${path} refused after ${ms} ms`).toBeLessThanOrEqual(REVOCATION_BOUND_MS);
      expect(errorProblems(r.body, "UNAUTHENTICATED"), path).toEqual([]);
      expect(r.headers.get("www-authenticate"), path).toMatch(/^Bearer .*error="invalid_token"/);
    }

    const again = await tokenRequest(client.id, client.secret);
    expect(again.status).toBe(401);
    expect(await again.clone().json()).toMatchObject({ error: "invalid_client" });
    const refused = await oauth
      .processClientCredentialsResponse(as, { client_id: client.id }, again)
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);

    // Only that client is refused: another client still gets a token and is served.
    const demo = await oauth.processClientCredentialsResponse(
      as,
      { client_id: stack.demoClient.clientId },
      await tokenRequest(
        stack.demoClient.clientId,
        stack.demoClient.clientSecret,
        "vacancies:read",
      ),
    );
    expect(
      (await api("GET", "/v1/vacancies?per_page=1", { bearer: demo.access_token })).status,
    ).toBe(200);
  });
});
