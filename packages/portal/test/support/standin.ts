// The built portal served as the webhooks service serves it (packages/portal/dist at /portal/,
// Content-Security-Policy `default-src 'self'`), with /portal/api answered from memory in the
// contract's envelopes. A stand-in for the page's own tests (rendering, accessibility, escaping,
// CSRF header, read-only); the end-to-end journey (test/e2e/portal-journey.test.ts) runs the
// real stack.
import { randomUUID } from "node:crypto";
import { readFileSync, existsSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const DIST = fileURLToPath(new URL("../../dist", import.meta.url));
export const PORTAL_CSP =
  "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

export interface StandinState {
  session: {
    client_id: string;
    read_only: boolean;
    subscription_ids: string[] | null;
    expires_at: string;
    csrf_token: string;
    environment: "production" | "sandbox";
    links: Record<string, string>;
  };
  /** When set, every API call answers 401 (a revoked session). */
  revoked: boolean;
  subscriptions: Array<Record<string, unknown>>;
  /** Deliveries by subscription, newest first, each with its attempts. */
  deliveries: Map<
    string,
    Array<Record<string, unknown> & { attempts: Array<Record<string, unknown>> }>
  >;
  /** The event catalogue `GET /v1/webhooks/event-types` answers. */
  eventTypes: Array<Record<string, unknown>>;
  /** Every GET's path and query, in order. */
  reads: string[];
  /** Every non-GET request: method, path, the CSRF header it carried. */
  changes: Array<{ method: string; path: string; csrf: string | undefined; body: unknown }>;
}

const now = () => new Date().toISOString();

export function subscription(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const at = now();
  return {
    webhook_uuid: randomUUID(),
    url: "https://hooks.example.com/in",
    event_types: ["vacancy.updated"],
    enabled: true,
    disabled_reason: null,
    disabled_at: null,
    secret_rotated_at: null,
    previous_secret_expires_at: null,
    created_at: at,
    updated_at: at,
    ...overrides,
  };
}

/** A catalogue entry as `GET /v1/webhooks/event-types` lists it. */
export function eventType(
  type: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const entity = type.split(".")[0]!;
  return {
    event_type: type,
    entity_type: entity,
    description: `A ${entity} was ${type.split(".")[1]}; fetch its current state from \`links.self\`.`,
    occurred_at: `When the ${entity} changed.`,
    schema: { type: "object", properties: { event_type: { const: type } } },
    example: { event_type: type, entity: { type: entity, id: "example-1" } },
    ...overrides,
  };
}

export function delivery(
  webhookUuid: string,
  overrides: Record<string, unknown> = {},
  attempts: Array<Record<string, unknown>> = [],
) {
  const at = now();
  return {
    delivery_uuid: randomUUID(),
    webhook_uuid: webhookUuid,
    event_uuid: randomUUID(),
    event_type: "vacancy.updated",
    status: "succeeded",
    failure_reason: null,
    round: 1,
    attempt_count: attempts.length,
    round_attempt_count: attempts.length,
    last_status_code: 200,
    last_attempt_at: at,
    next_attempt_at: null,
    created_at: at,
    updated_at: at,
    ...overrides,
    attempts,
  };
}

export function attempt(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    number: 1,
    round: 1,
    attempted_at: now(),
    duration_ms: 12,
    status_code: 200,
    outcome: "succeeded",
    error_class: null,
    error_detail: null,
    response_sample: "ok",
    ...overrides,
  };
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  meta: Record<string, unknown> = {},
) {
  const envelope =
    status < 400
      ? {
          success: true,
          data: body,
          meta: { request_id: randomUUID(), api_version: "v1", ...meta },
        }
      : { success: false, error: body, meta: { request_id: randomUUID(), api_version: "v1" } };
  res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store" });
  res.end(JSON.stringify(envelope));
}

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/** A page of deliveries, newest first, filtered as the API filters them. */
function listDeliveries(
  res: ServerResponse,
  url: URL,
  list: ReadonlyArray<Record<string, unknown>>,
) {
  const q = (name: string) => url.searchParams.get(name);
  const since = q("created_since");
  const before = q("created_before");
  const perPage = Number(q("per_page") ?? 25);
  const page = Number(q("page") ?? 1);
  const matching = list.filter(
    (d) =>
      (q("status") === null || d.status === q("status")) &&
      (q("event_type") === null || d.event_type === q("event_type")) &&
      (since === null || Date.parse(String(d.created_at)) >= Date.parse(since)) &&
      (before === null || Date.parse(String(d.created_at)) < Date.parse(before)),
  );
  const data = matching
    .slice((page - 1) * perPage, page * perPage)
    .map(({ attempts: _attempts, ...d }) => d);
  return send(res, 200, data, {
    pagination: {
      page,
      per_page: perPage,
      total: matching.length,
      total_pages: Math.ceil(matching.length / perPage),
    },
  });
}

function api(
  state: StandinState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  body: unknown,
) {
  if (state.revoked)
    return send(res, 401, { code: "UNAUTHENTICATED", message: "the portal session has ended" });
  if (req.method === "GET") state.reads.push(path);
  if (req.method !== "GET") {
    state.changes.push({
      method: req.method!,
      path,
      csrf: req.headers["x-csrf-token"] as string | undefined,
      body,
    });
    if (req.headers["x-csrf-token"] !== state.session.csrf_token)
      return send(res, 403, { code: "FORBIDDEN", message: "missing or wrong CSRF token" });
  }
  const url = new URL(path, "http://portal");
  const parts = url.pathname.split("/").filter(Boolean); // v1 webhooks {id} ...
  if (url.pathname === "/session") return send(res, 200, state.session);
  if (parts[0] === "v1" && parts[1] === "events")
    return send(res, 200, [], { pagination: { per_page: 50, next_cursor: "c1", has_more: false } });
  if (parts[0] !== "v1" || parts[1] !== "webhooks")
    return send(res, 404, { code: "NOT_FOUND", message: "not found" });
  const id = parts[2];
  if (id === "event-types" && parts.length === 3) return send(res, 200, state.eventTypes);
  if (id === "deliveries" && parts.length === 3)
    return listDeliveries(
      res,
      url,
      [...state.deliveries.values()]
        .flat()
        .sort((a, b) => String(b.created_at).localeCompare(String(a.created_at))),
    );
  if (id === undefined) {
    if (req.method === "POST") {
      const created = subscription(body as Record<string, unknown>);
      state.subscriptions.push(created);
      state.deliveries.set(created.webhook_uuid as string, []);
      return send(res, 201, { ...created, secret: "whsec_standin-secret" });
    }
    return send(res, 200, state.subscriptions, {
      pagination: { page: 1, per_page: 100, total: state.subscriptions.length, total_pages: 1 },
    });
  }
  const sub = state.subscriptions.find((s) => s.webhook_uuid === id);
  if (!sub) return send(res, 404, { code: "NOT_FOUND", message: "no such subscription" });
  const list = state.deliveries.get(id) ?? [];
  if (parts.length === 3) {
    if (req.method === "PATCH") {
      Object.assign(sub, body, { updated_at: now() });
      return send(res, 200, sub);
    }
    return send(res, 200, sub);
  }
  if (parts[3] === "rotate-secret") {
    Object.assign(sub, {
      secret_rotated_at: now(),
      previous_secret_expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    return send(res, 200, { ...sub, secret: "whsec_rotated-standin-secret" });
  }
  if (parts[3] === "deliveries" && parts[4] === undefined) return listDeliveries(res, url, list);
  if (parts[3] === "deliveries" && parts[4]) {
    const found = list.find((d) => d.delivery_uuid === parts[4]);
    if (!found) return send(res, 404, { code: "NOT_FOUND", message: "no such delivery" });
    if (parts[5] === "redeliver") {
      Object.assign(found, {
        status: "pending",
        round: (found.round as number) + 1,
        updated_at: now(),
      });
      const { attempts: _a, ...rest } = found;
      return send(res, 202, rest);
    }
    return send(res, 200, found);
  }
  return send(res, 404, { code: "NOT_FOUND", message: "not found" });
}

export interface Standin {
  origin: string;
  state: StandinState;
  close(): Promise<void>;
}

export async function startStandin(
  session: Partial<StandinState["session"]> = {},
): Promise<Standin> {
  if (!existsSync(join(DIST, "index.html")))
    throw new Error("build the portal first (buildPortal)");
  const state: StandinState = {
    session: {
      client_id: "client-standin",
      read_only: false,
      subscription_ids: null,
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      csrf_token: "csrf-standin-token",
      environment: "sandbox",
      links: {},
      ...session,
    },
    revoked: false,
    subscriptions: [],
    deliveries: new Map(),
    eventTypes: ["vacancy.created", "vacancy.updated", "vacancy.deleted", "system.ping"].map(
      (type) => eventType(type),
    ),
    reads: [],
    changes: [],
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://portal");
    if (url.pathname.startsWith("/portal/api/")) {
      void bodyOf(req).then((body) =>
        api(state, req, res, url.pathname.slice("/portal/api".length) + url.search, body),
      );
      return;
    }
    if (url.pathname === "/portal") {
      res.writeHead(301, { Location: "/portal/" }).end();
      return;
    }
    if (!url.pathname.startsWith("/portal/")) {
      res.writeHead(404).end();
      return;
    }
    const relative = normalize(url.pathname.slice("/portal/".length) || "index.html");
    const file = join(DIST, relative);
    if (!file.startsWith(DIST) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
      "Content-Security-Policy": PORTAL_CSP,
      "Referrer-Policy": "no-referrer",
      "X-Content-Type-Options": "nosniff",
    });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
