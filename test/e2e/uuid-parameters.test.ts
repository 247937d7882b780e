/**
 * The uuid rule (docs/decisions/uuid-case.md) over EVERY uuid parameter of the OpenAPI document,
 * against the `npm start` stack, with the production-only operations on in-process production
 * instances over the same stores (test/hostile/world.ts). The table is read from the document, so
 * a new uuid parameter is a new row without editing this file (and fails until `realValues` knows
 * where to find a real one).
 *
 * Each row sends a real id in lower case, the same id in upper case (the same answer, uuids
 * written in lower case) and a malformed one (422 naming the parameter). Every request carries an
 * upper-case `X-Request-Id`, which comes back, in lower case, from the gateway and every service.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readOpenApiDocument } from "@svc/openapi";
import type { Target } from "../hostile/endpoints.ts";
import { startWorld, type World } from "../hostile/world.ts";

type Parameter = { name: string; in: string; schema?: { format?: string; pattern?: string } };
type Operation = {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: unknown;
  "x-environments"?: string[];
};
type Row = {
  operationId: string;
  method: string;
  path: string;
  parameter: string;
  in: "path" | "query";
  target: Target;
  pathParams: string[];
  hasBody: boolean;
};

/** Where the production-only operations run in the test world, by path prefix. */
const PRODUCTION_TARGETS: ReadonlyArray<[string, Target]> = [
  ["/v1/applications/", "identity-production"],
  ["/v1/crm-mirror/", "practices-production"],
];

function rowsOf(): Row[] {
  const document = readOpenApiDocument() as unknown as {
    paths: Record<string, Record<string, Operation>>;
  };
  const rows: Row[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (typeof op !== "object" || !("operationId" in op)) continue;
      const parameters = op.parameters ?? [];
      const sandbox = !op["x-environments"] || op["x-environments"].includes("sandbox");
      const target: Target | undefined = sandbox
        ? "gateway"
        : PRODUCTION_TARGETS.find(([prefix]) => path.startsWith(prefix))?.[1];
      for (const p of parameters) {
        if (p.schema?.format !== "uuid" || (p.in !== "path" && p.in !== "query")) continue;
        if (!target) throw new Error(`${op.operationId}: no test target for a production path`);
        rows.push({
          operationId: op.operationId,
          method: method.toUpperCase(),
          path,
          parameter: p.name,
          in: p.in,
          target,
          pathParams: parameters.filter((x) => x.in === "path").map((x) => x.name),
          hasBody: op.requestBody !== undefined,
        });
      }
    }
  }
  return rows;
}

const ROWS = rowsOf();

/** Bodies of the operations in the table that take one (a new one fails until it is here). */
const BODIES: Record<string, () => unknown> = {
  updateWebhook: () => ({ enabled: true }),
  recoverWebhookDeliveries: () => ({ since: new Date(Date.now() - 60_000).toISOString() }),
  submitApplication: () => ({}),
};

let world: World;
let values: Record<string, string>;

type Answer = {
  status: number;
  text: string;
  body: {
    data?: unknown;
    meta?: { request_id?: string };
    error?: { code: string; details?: Array<{ field: string }> };
  };
};

async function send(
  target: Target,
  method: string,
  path: string,
  options: { body?: unknown; requestId?: string } = {},
): Promise<Answer & { requestId: string | null }> {
  const headers: Record<string, string> = {
    accept: "application/json",
    authorization: `Bearer ${world.render.tokens[target].all}`,
    "x-request-id": options.requestId ?? randomUUID().toUpperCase(),
  };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`http://127.0.0.1:${world.render.ports[target]}${path}`, {
    method,
    headers,
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    body: text ? (JSON.parse(text) as Answer["body"]) : {},
    requestId: res.headers.get("x-request-id"),
  };
}

async function newWebhook(): Promise<string> {
  const created = await send("gateway", "POST", "/v1/webhooks", {
    body: { url: "https://127.0.0.1:9/uuid-rule", event_types: ["application.created"] },
  });
  if (created.status !== 201) throw new Error(`creating a webhook answered ${created.status}`);
  return (created.body.data as { webhook_uuid: string }).webhook_uuid;
}

async function newPortalSession(): Promise<string> {
  const made = await send("gateway", "POST", "/v1/webhooks/portal-sessions", { body: {} });
  if (made.status !== 201) throw new Error(`creating a portal link answered ${made.status}`);
  return (made.body.data as { id: string }).id;
}

/** A real id for every uuid parameter name of the document. */
async function realValues(): Promise<Record<string, string>> {
  const ids = world.generation.realIds;
  const webhook = await newWebhook();
  const ping = await send("gateway", "POST", `/v1/webhooks/${webhook}/test`);
  if (ping.status !== 202) throw new Error(`the test ping answered ${ping.status}`);
  const deadline = Date.now() + 30_000;
  let event: string | undefined;
  while (!event && Date.now() < deadline) {
    const feed = await send("gateway", "GET", "/v1/events?per_page=1");
    event = (feed.body.data as Array<{ event_uuid: string }> | undefined)?.[0]?.event_uuid;
    if (!event) await new Promise((r) => setTimeout(r, 250));
  }
  if (!event) throw new Error("no event reached the events feed within 30 s");
  const candidate = ids.candidate?.[0];
  const application = ids.application?.[0];
  const vacancy = ids.vacancy?.[0];
  const recruitmentCase = ids["recruitment-case"]?.[0];
  if (!candidate || !application || !vacancy || !recruitmentCase)
    throw new Error("the world holds no application");
  return {
    uuid: vacancy,
    vacancy_uuid: vacancy,
    candidate_uuid: candidate,
    application_uuid: application,
    recruitment_case_uuid: recruitmentCase,
    webhook_uuid: webhook,
    delivery_uuid: (ping.body.data as { delivery_uuid: string }).delivery_uuid,
    event_uuid: event,
    session_id: await newPortalSession(),
  };
}

function urlOf(row: Row, given: Record<string, string>): string {
  let path = row.path;
  for (const name of row.pathParams) {
    const value = given[name];
    if (value === undefined) throw new Error(`${row.operationId}: no value for ${name}`);
    path = path.replace(`{${name}}`, encodeURIComponent(value));
  }
  if (row.in === "query") {
    const value = given[row.parameter] as string;
    path += `?${new URLSearchParams({ [row.parameter]: value }).toString()}`;
  }
  return path;
}

async function call(row: Row, given: Record<string, string>, requestId?: string) {
  let body: unknown;
  if (row.hasBody) {
    const make = BODIES[row.operationId];
    if (!make) throw new Error(`${row.operationId}: no request body in BODIES`);
    body = make();
  }
  return send(row.target, row.method, urlOf(row, given), {
    body,
    ...(requestId && { requestId }),
  });
}

beforeAll(async () => {
  world = await startWorld({ env: { WEBHOOK_ALLOW_LOOPBACK: "true" } });
  values = await realValues();
}, 420_000);

afterAll(async () => {
  await world?.close();
}, 120_000);

describe("uuids in paths and queries: any case in, lower case out, else 422", () => {
  it("the table is read from the document (paths and queries of every service)", () => {
    const labels = ROWS.map((r) => `${r.in} ${r.parameter}`);
    for (const expected of [
      "path uuid",
      "path webhook_uuid",
      "path event_uuid",
      "query vacancy_uuid",
    ])
      expect(labels).toContain(expected);
  });

  it.each(ROWS.map((r) => [`${r.method} ${r.path} ${r.in} ${r.parameter}`, r] as const))(
    "%s",
    async (_label, row) => {
      // A DELETE takes its own subscription or portal link, so the other rows keep theirs.
      const given =
        row.method === "DELETE" && row.parameter === "webhook_uuid"
          ? { ...values, webhook_uuid: await newWebhook() }
          : row.method === "DELETE" && row.parameter === "session_id"
            ? { ...values, session_id: await newPortalSession() }
            : values;
      const lowerValue = given[row.parameter];
      if (lowerValue === undefined) throw new Error(`no real value for ${row.parameter}`);
      const upperValue = lowerValue.toUpperCase();
      expect(upperValue).not.toBe(lowerValue);

      const requestId = randomUUID().toUpperCase();
      const upper = await call(row, { ...given, [row.parameter]: upperValue }, requestId);
      expect(upper.status, upper.text).toBeLessThan(500);
      expect([404, 422], upper.text).not.toContain(upper.status);
      expect(upper.text).not.toContain(upperValue);
      if (upper.status < 300) expect(upper.text).toContain(lowerValue);
      expect(upper.requestId).toBe(requestId.toLowerCase());
      expect(upper.body.meta?.request_id).toBe(requestId.toLowerCase());

      if (row.method !== "DELETE") {
        const lower = await call(row, given);
        expect(Math.floor(lower.status / 100), lower.text).toBe(Math.floor(upper.status / 100));
        if (row.method === "GET" && Array.isArray(lower.body.data)) {
          expect(lower.body.data.length).toBeGreaterThan(0);
          expect((upper.body.data as unknown[]).length).toBe(lower.body.data.length);
        }
      }

      const malformed = await call(row, {
        ...given,
        [row.parameter]: `${lowerValue.slice(0, -1)}g`,
      });
      expect(malformed.status, malformed.text).toBe(422);
      expect(malformed.body.error?.code).toBe("VALIDATION_ERROR");
      expect(malformed.body.error?.details?.map((d) => d.field)).toContain(row.parameter);
    },
    60_000,
  );

  it("an X-Request-Id that is not a uuid is replaced by a new one", async () => {
    const answer = await send("gateway", "GET", `/v1/vacancies/${values.uuid}`, {
      requestId: "not-a-uuid",
    });
    expect(answer.status).toBe(200);
    expect(answer.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-/);
    expect(answer.body.meta?.request_id).toBe(answer.requestId);
  });
});
