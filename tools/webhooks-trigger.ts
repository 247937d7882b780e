/**
 * `npm run webhooks -- trigger <event-type>`: makes an event of that type happen for real on the
 * local stack or a sandbox, so the whole path runs (change, detection or outbox, the events feed,
 * the dispatcher, your endpoint), then prints the event's id once the event is in the feed.
 * Legacy changes go into the sandbox legacy database (@svc/sandbox makeSandboxChange, stamped with
 * the primary system's wall clock in its zone); the others through the API. Refused in production.
 */
import { randomBytes, randomUUID } from "node:crypto";
import {
  API_CLIENT_OPTIONS,
  apiClientArgs,
  UsageError,
  type CommandSpec,
  type Invocation,
} from "@svc/cli";
import { EVENT_TYPES, isEventType, type EventType } from "@svc/events/catalogue";
import {
  isSandboxChange,
  makeSandboxChange,
  openServerConnection,
  SANDBOX_CHANGES,
} from "@svc/sandbox/changes";
import { isTimeZone } from "@svc/config";
import { sleep } from "@svc/time";

/** How each event type is made; a type not listed cannot be made on demand. */
const HOW: Partial<Record<EventType, string>> = {
  ...SANDBOX_CHANGES,
  "candidate.created": "creates an application for a new candidate (POST /v1/applications)",
  "recruitment_case.created": "creates an application for a new candidate (POST /v1/applications)",
  "application.created": "creates an application for a new candidate (POST /v1/applications)",
  "system.ping": "asks for a test delivery (POST /v1/webhooks/{id}/test), to --webhook",
};

/** Why the others are not offered. */
const NOT_OFFERED: Partial<Record<EventType, string>> = {
  "practice.deleted":
    "a practice gone from both sources is seen only by the full sweep, up to 15 minutes later",
  "application.submitted": "production only; the sandbox catalogue does not have it",
};

export const TRIGGER_SPEC: CommandSpec = {
  name: "npm run webhooks -- trigger",
  summary:
    "Makes an event of <event-type> happen for real on the local stack or a sandbox (a change in the sandbox legacy database, or an API call), waits until the event is in the events feed and prints its id. Refused in production.",
  args: ["<event-type>"],
  options: {
    webhook: {
      type: "string",
      value: "<uuid>",
      description: "system.ping: the subscription to ping (default: your only subscription)",
    },
    ...API_CLIENT_OPTIONS,
    "legacy-database-url": {
      type: "string",
      value: "<mysql-url>",
      secret: true,
      description:
        "vacancy.* and practice.*: the sandbox legacy database (default: $LEGACY_DATABASE_URL, else the local stack's mysql://root@127.0.0.1:3306/legacy_sandbox)",
    },
    "time-zone": {
      type: "string",
      value: "<zone>",
      description:
        "the primary system's zone, of its modification times (default: $TIME_ZONE, else Europe/Brussels)",
    },
    "timeout-ms": {
      type: "string",
      value: "<ms>",
      description: "longest wait for the event in the feed (default: 60000)",
    },
    json: { type: "boolean", description: "print the event as one JSON line" },
  },
  secretEnv: ["CLIENT_SECRET", "LEGACY_DATABASE_URL"],
  json: [
    '{"event_type","event_uuid","entity":{"type","id"},"links":{"self"}} (system.ping adds "delivery_uuid")',
  ],
  examples: [
    "npm run webhooks -- trigger vacancy.updated",
    "npm run webhooks -- trigger application.created --json",
    "npm run webhooks -- trigger system.ping --webhook 67e96bee-cad0-4919-8e8c-6372373de283",
  ],
  notes: [
    "Event types:",
    ...EVENT_TYPES.map(
      (t) =>
        `  ${t.padEnd(26)}${HOW[t] ?? `not offered: ${NOT_OFFERED[t] ?? "no way to make it"}`}`,
    ),
    "The client needs webhooks:read and the read scope of the event's kind (vacancies:read, ...); application events need applications:write, system.ping webhooks:write.",
    "Exit codes: 0 the event is in the feed (system.ping: the delivery is queued), 1 refused (production, the API, a database that is not a sandbox) or not in the feed in time, 2 usage.",
  ],
};

export interface TriggerEnv {
  BASE_URL?: string | undefined;
  CLIENT_ID?: string | undefined;
  CLIENT_SECRET?: string | undefined;
  LEGACY_DATABASE_URL?: string | undefined;
  TIME_ZONE?: string | undefined;
}

/** A refusal or failure the command reports as one line, exit 1. */
export class TriggerError extends Error {}

interface FeedEvent {
  event_uuid: string;
  event_type: string;
  entity: { type: string; id: string };
  links: { self: string };
}

const REQUEST_TIMEOUT_MS = 15_000;

export async function runTrigger(call: Invocation, env: TriggerEnv): Promise<number> {
  const type = call.args[0]!;
  if (!isEventType(type))
    throw new UsageError(`'${type}' is not an event type; one of ${EVENT_TYPES.join(", ")}`);
  if (HOW[type] === undefined)
    throw new TriggerError(`${type} is not offered: ${NOT_OFFERED[type] ?? "no way to make it"}`);
  const { baseUrl, clientId, clientSecret } = apiClientArgs(call, env);
  const timeoutMs = Number(call.string("timeout-ms") ?? 60_000);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1_000 || timeoutMs > 3_600_000)
    throw new UsageError("--timeout-ms must be whole milliseconds, 1000 to 3600000");
  const timeZone = call.string("time-zone") ?? env.TIME_ZONE ?? "Europe/Brussels";
  if (!isTimeZone(timeZone)) throw new UsageError("--time-zone must be an IANA zone");
  const legacyUrl =
    call.string("legacy-database-url") ??
    env.LEGACY_DATABASE_URL ??
    "mysql://root@127.0.0.1:3306/legacy_sandbox";
  const webhook = call.string("webhook");

  const api = apiClient(baseUrl, clientId, clientSecret);
  // Public, so asked first: nothing is done, not even a token, against production.
  const version = await api.call<{ environment: string }>("GET", "/v1/version");
  if (version.environment === "production")
    throw new TriggerError(
      `${baseUrl} is a production installation: trigger makes real changes and is refused there; use the local stack or a sandbox`,
    );
  const started = await api.token();
  // The feed's clock, a second back: an event recorded in the same second is still found.
  const since = new Date(started - 1_000).toISOString();

  let found: FeedEvent & { delivery_uuid?: string };
  if (type === "system.ping") {
    const id = webhook ?? (await onlySubscription(api));
    const delivery = await api.call<{ delivery_uuid: string; event_uuid: string }>(
      "POST",
      `/v1/webhooks/${encodeURIComponent(id)}/test`,
    );
    found = {
      event_uuid: delivery.event_uuid,
      event_type: type,
      entity: { type: "system", id },
      links: { self: `${baseUrl}/v1/health` },
      delivery_uuid: delivery.delivery_uuid,
    };
  } else if (isSandboxChange(type)) {
    const url = URL.parse(legacyUrl);
    const database = url?.pathname.replace(/^\//, "") ?? "";
    if (!url || !/^(mysql|mariadb):$/.test(url.protocol) || database === "")
      throw new UsageError("--legacy-database-url must be mysql://user@host:port/<database>");
    const connection = await openServerConnection(legacyUrl).catch((err: Error) => {
      throw new TriggerError(`cannot reach the legacy database: ${err.message}`);
    });
    let change;
    try {
      change = await makeSandboxChange(connection, database, type, { timeZone });
    } catch (err) {
      throw new TriggerError((err as Error).message);
    } finally {
      await connection.end();
    }
    call.io.err(
      `Changed ${change.entityType} ${change.entityId} in ${database} (modified ${change.modifiedLocal}, ${timeZone}); waiting for ${type} in the events feed.`,
    );
    found = await awaitEvent(api, type, since, timeoutMs, (e) => e.entity.id === change.entityId);
  } else {
    const application = await createApplication(api);
    call.io.err(
      `Created application ${application.application_uuid} (candidate ${application.candidate_uuid}); waiting for ${type} in the events feed.`,
    );
    const match = async (e: FeedEvent): Promise<boolean> => {
      if (type === "application.created") return e.entity.id === application.application_uuid;
      if (type === "candidate.created") return e.entity.id === application.candidate_uuid;
      const recruitmentCase = await api.call<{ candidate_uuid: string }>(
        "GET",
        `/v1/recruitment-cases/${encodeURIComponent(e.entity.id)}`,
      );
      return recruitmentCase.candidate_uuid === application.candidate_uuid;
    };
    found = await awaitEvent(api, type, since, timeoutMs, match);
  }
  if (call.flag("json")) call.io.out(JSON.stringify(found));
  else
    call.io.out(
      `${found.event_type}  ${found.event_uuid}  ${found.entity.type} ${found.entity.id}${found.delivery_uuid ? `  delivery ${found.delivery_uuid}` : ""}`,
    );
  return 0;
}

type Api = ReturnType<typeof apiClient>;

function apiClient(baseUrl: string, clientId: string, clientSecret: string) {
  let bearer = "";
  const basic = Buffer.from(
    `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`,
  ).toString("base64");
  return {
    /** Fetches a token; resolves with the server's clock (its Date header) in ms. */
    async token(): Promise<number> {
      const res = await fetch(`${baseUrl}/oauth/token`, {
        method: "POST",
        headers: {
          authorization: `Basic ${basic}`,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: "grant_type=client_credentials",
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      }).catch((err: Error) => {
        throw new TriggerError(`cannot reach ${baseUrl}: ${describe(err)}`);
      });
      const body = (await res.json().catch(() => ({}))) as {
        access_token?: string;
        error?: string;
      };
      if (!res.ok || !body.access_token)
        throw new TriggerError(`the token request was refused: ${body.error ?? res.status}`);
      bearer = body.access_token;
      const date = Date.parse(res.headers.get("date") ?? "");
      return Number.isNaN(date) ? Date.now() : date;
    },
    async call<T>(
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ): Promise<T> {
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        headers: {
          ...(bearer !== "" && { authorization: `Bearer ${bearer}` }),
          accept: "application/json",
          ...(body !== undefined && { "content-type": "application/json" }),
          ...headers,
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      }).catch((err: Error) => {
        throw new TriggerError(`cannot reach ${baseUrl}: ${describe(err)}`);
      });
      const answer = (await res.json().catch(() => undefined)) as
        { data?: T; error?: { code: string; message: string } } | undefined;
      if (!res.ok || answer?.data === undefined)
        throw new TriggerError(
          `${method} ${path} answered ${res.status} ${answer?.error?.code ?? ""}: ${answer?.error?.message ?? ""}`.trim(),
        );
      return answer.data;
    },
    /** One page of the events feed. */
    async callPage(path: string): Promise<{
      data: Array<{ event_uuid: string; payload: FeedEvent }>;
      next_cursor: string;
      has_more: boolean;
    }> {
      const res = await fetch(`${baseUrl}${path}`, {
        headers: { authorization: `Bearer ${bearer}`, accept: "application/json" },
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      }).catch((err: Error) => {
        throw new TriggerError(`cannot reach ${baseUrl}: ${describe(err)}`);
      });
      const answer = (await res.json().catch(() => undefined)) as
        | {
            data: Array<{ event_uuid: string; payload: FeedEvent }>;
            meta: { pagination: { next_cursor: string; has_more: boolean } };
            error?: { code: string; message: string };
          }
        | undefined;
      if (!res.ok || !answer?.meta?.pagination)
        throw new TriggerError(
          `the events feed answered ${res.status} ${answer?.error?.code ?? ""}: ${answer?.error?.message ?? ""}`.trim(),
        );
      return { data: answer.data, ...answer.meta.pagination };
    },
  };
}

async function onlySubscription(api: Api): Promise<string> {
  const subscriptions = await api.call<Array<{ webhook_uuid: string }>>(
    "GET",
    "/v1/webhooks?per_page=100",
  );
  if (subscriptions.length !== 1)
    throw new UsageError(
      `--webhook <uuid> is needed: this client has ${subscriptions.length} subscriptions`,
    );
  return subscriptions[0]!.webhook_uuid;
}

/** An application for a new candidate, to a vacancy of a known practice (the API requires one). */
async function createApplication(
  api: Api,
): Promise<{ application_uuid: string; candidate_uuid: string }> {
  const vacancies = await api.call<
    Array<{ uuid: string; practice: { legacy_reference: string | null } }>
  >("GET", "/v1/vacancies?per_page=100");
  const vacancy = vacancies.find((v) => v.practice.legacy_reference !== null);
  if (!vacancy) throw new TriggerError("no vacancy of a known practice to apply to");
  return api.call(
    "POST",
    "/v1/applications",
    {
      vacancy_uuid: vacancy.uuid,
      candidate: { email: `trigger-${randomBytes(6).toString("hex")}@example.com` },
      consent: true,
      entrypoint: "Vacature-pagina",
    },
    { "idempotency-key": randomUUID() },
  );
}

/** Polls the events feed for the first event of `type` recorded since `since` that `match`es. */
async function awaitEvent(
  api: Api,
  type: EventType,
  since: string,
  timeoutMs: number,
  match: (event: FeedEvent) => boolean | Promise<boolean>,
): Promise<FeedEvent> {
  const deadline = Date.now() + timeoutMs;
  const seen = new Set<string>();
  let query = new URLSearchParams({ type, created_since: since, per_page: "100" }).toString();
  while (Date.now() < deadline) {
    const res = await api.callPage(`/v1/events?${query}`);
    for (const item of res.data) {
      if (seen.has(item.event_uuid)) continue;
      seen.add(item.event_uuid);
      const event = item.payload;
      if (await match(event)) return event;
    }
    query = new URLSearchParams({ cursor: res.next_cursor, per_page: "100" }).toString();
    if (!res.has_more) await sleep(250);
  }
  throw new TriggerError(
    `no ${type} for this change in the events feed within ${timeoutMs} ms (is the stack's change detection running?)`,
  );
}

function describe(err: Error): string {
  const cause = err.cause as { code?: string; message?: string } | undefined;
  return err.name === "TimeoutError" ? "timeout" : (cause?.code ?? cause?.message ?? err.message);
}
