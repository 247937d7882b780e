/**
 * What the end-to-end flows check the way an API client or a webhook subscriber written from the
 * contract would: the response and error envelopes, the delivery signature, no legacy names, and
 * the client administration CLI run as an operator runs it.
 */
import { spawn } from "node:child_process";
import { createHmac, timingSafeEqual } from "node:crypto";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { TABLES } from "@svc/legacy";
import { COLUMNS, MARKER_TABLE } from "@svc/sandbox";
import type { ReceivedRequest } from "@svc/testing";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export type Envelope = {
  success: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
  meta: { request_id: string; api_version: string; pagination?: Record<string, number> };
  error?: { code: string; message: string };
};

/** Problems with a success envelope; `list` also demands the pagination block. */
export function envelopeProblems(body: Envelope | undefined, list: boolean): string[] {
  if (!body || typeof body !== "object") return ["body is not a JSON object"];
  const problems: string[] = [];
  if (body.success !== true) problems.push("success is not true");
  if (!("data" in body)) problems.push("no data");
  if (!UUID.test(String(body.meta?.request_id)))
    problems.push("meta.request_id is not UUID-shaped");
  if (body.meta?.api_version !== "v1") problems.push("meta.api_version is not v1");
  const p = body.meta?.pagination;
  if (list) {
    if (!Array.isArray(body.data)) problems.push("data is not an array");
    if (!p || ["page", "per_page", "total", "total_pages"].some((k) => !Number.isInteger(p[k])))
      problems.push("meta.pagination is incomplete");
    else if (p.total_pages !== Math.ceil(p.total! / p.per_page!))
      problems.push("total_pages does not follow from total and per_page");
  } else if (p !== undefined) problems.push("pagination on a single resource");
  return problems;
}

/** Problems with an error envelope carrying `code`. */
export function errorProblems(body: Envelope | undefined, code: string): string[] {
  if (!body || typeof body !== "object") return ["body is not a JSON object"];
  const problems: string[] = [];
  if (body.success !== false) problems.push("success is not false");
  if (body.error?.code !== code)
    problems.push(`error.code is ${String(body.error?.code)}, not ${code}`);
  if (typeof body.error?.message !== "string" || body.error.message === "")
    problems.push("no error.message");
  if (!UUID.test(String(body.meta?.request_id)))
    problems.push("meta.request_id is not UUID-shaped");
  if (body.meta?.api_version !== "v1") problems.push("meta.api_version is not v1");
  if ("data" in body) problems.push("an error carries data");
  return problems;
}

// Legacy column names that are also the contract's own keys (the practice and vacancy fields):
// `uuid`, `slug`, `teaser`, `status`, `alias`, `email`, `logo`, `crm_id`. Every other table or
// column name is legacy.
const CONTRACT_KEYS = new Set([
  "uuid",
  "slug",
  "teaser",
  "status",
  "alias",
  "email",
  "logo",
  "crm_id",
]);
const LEGACY_TABLES: string[] = [...Object.values(TABLES), MARKER_TABLE];
const LEGACY_KEYS = new Set<string>(
  [...LEGACY_TABLES, ...Object.values(COLUMNS).flatMap((c) => [...c] as string[])].filter(
    (n) => !CONTRACT_KEYS.has(n),
  ),
);

/** Legacy table names anywhere in a body's text, and legacy names used as keys anywhere in it. */
export function legacyNamesIn(text: string): string[] {
  const found = LEGACY_TABLES.filter((t) => text.includes(t));
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object") {
      for (const [key, child] of Object.entries(value)) {
        if (LEGACY_KEYS.has(key)) found.push(key);
        walk(child);
      }
    }
  };
  walk(JSON.parse(text));
  return found;
}

export interface VerifiedDelivery {
  eventId: string;
  eventType: string;
  timestamp: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  payload: any;
}

/**
 * Verifies one delivery as the contract tells a subscriber to (HMAC-SHA256 of
 * "<timestamp>.<raw body>" with the subscription secret, constant-time compare, timestamp within
 * 300 s) and returns what it carries; throws naming the first rule it breaks.
 */
export function verifyDelivery(
  request: ReceivedRequest,
  secret: string,
  nowMs = Date.now(),
): VerifiedDelivery {
  const header = (name: string) => {
    const value = request.headers[name];
    if (typeof value !== "string" || value === "") throw new Error(`missing ${name}`);
    return value;
  };
  const timestamp = header("x-svc-timestamp");
  if (!/^\d+$/.test(timestamp))
    throw new Error(`X-SVC-Timestamp is not Unix seconds: ${timestamp}`);
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > 300)
    throw new Error(`X-SVC-Timestamp ${timestamp} is outside the 300 s tolerance`);
  const expected = createHmac("sha256", secret)
    .update(`${timestamp}.`)
    .update(request.rawBody)
    .digest();
  const signatures = header("x-svc-signature")
    .split(",")
    .map((s) => s.trim());
  const valid = signatures.some((s) => {
    const match = /^v1=([0-9a-f]{64})$/.exec(s);
    return match !== null && timingSafeEqual(Buffer.from(match[1]!, "hex"), expected);
  });
  if (!valid) throw new Error("no v1 signature verifies with the subscription secret");
  if (request.method !== "POST") throw new Error(`delivered with ${request.method}`);
  const payload = JSON.parse(request.rawBody.toString("utf8"));
  if (header("x-svc-event-id") !== payload.event_uuid)
    throw new Error("X-SVC-Event-Id differs from event_uuid");
  if (header("x-svc-event-type") !== payload.event_type)
    throw new Error("X-SVC-Event-Type differs from event_type");
  return {
    eventId: payload.event_uuid,
    eventType: payload.event_type,
    timestamp: Number(timestamp),
    payload,
  };
}

/** Problems with an event payload for `entity`. */
export function eventProblems(
  payload: VerifiedDelivery["payload"],
  type: string,
  entity: { type: string; id: string },
  selfUrl: string,
): string[] {
  const problems: string[] = [];
  const keys = Object.keys(payload).sort().join(",");
  if (keys !== "entity,event_type,event_uuid,event_version,links,occurred_at")
    problems.push(`unexpected fields: ${keys}`);
  if (!UUID.test(String(payload.event_uuid))) problems.push("event_uuid is not a UUID");
  if (payload.event_type !== type) problems.push(`event_type is ${String(payload.event_type)}`);
  if (!Number.isInteger(payload.event_version)) problems.push("event_version is not an integer");
  if (!ISO_WITH_OFFSET.test(String(payload.occurred_at)))
    problems.push("occurred_at is not ISO 8601 with an offset");
  if (payload.entity?.type !== entity.type || payload.entity?.id !== entity.id)
    problems.push(`entity is ${JSON.stringify(payload.entity)}`);
  if (payload.links?.self !== selfUrl)
    problems.push(`links.self is ${String(payload.links?.self)}, not ${selfUrl}`);
  return problems;
}

/**
 * `npm run clients -- <args>` against the stack's database and NATS namespace (what an operator
 * runs).
 */
export async function runClientsCli(
  env: Record<string, string>,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = spawn(process.execPath, ["services/auth/src/cli/clients.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  cli.stdout.setEncoding("utf8").on("data", (chunk: string) => void (stdout += chunk));
  cli.stderr.setEncoding("utf8").on("data", (chunk: string) => void (stderr += chunk));
  // "close", not "exit": the output streams are complete only then.
  const [code] = (await once(cli, "close")) as [number | null];
  return { code, stdout, stderr };
}
