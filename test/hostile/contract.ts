/**
 * What every answer to a hostile request must look like: no 5xx, no hang or dropped connection,
 * errors in the contract's shape (the error envelope; RFC 6749 bodies on the token endpoint) with a
 * known code, JSON content type and the request id, and no accepted write.
 */
import type { RawOutcome } from "../support/raw-http.ts";
import type { HostileRequest } from "./requests.ts";

/** Envelope codes and their statuses: the contract's plus the README's "Errors" table. */
export const ERROR_CODES: Readonly<Record<string, ReadonlyArray<number>>> = {
  UNAUTHENTICATED: [401],
  INSUFFICIENT_SCOPE: [403],
  NOT_FOUND: [404],
  VALIDATION_ERROR: [422],
  MALFORMED_REQUEST: [400],
  METHOD_NOT_ALLOWED: [405],
  REQUEST_TIMEOUT: [408],
  IDEMPOTENT_REQUEST_IN_PROGRESS: [409],
  CONFLICT: [409],
  PAYLOAD_TOO_LARGE: [413],
  UNSUPPORTED_MEDIA_TYPE: [415],
  REQUEST_HEADERS_TOO_LARGE: [431],
};

/**
 * RFC 6749 5.2 codes the token endpoint uses below 500 (the contract's plus 405/413/429 from the
 * auth README).
 */
export const OAUTH_ERRORS: Readonly<Record<string, ReadonlyArray<number>>> = {
  invalid_request: [400, 405, 413],
  invalid_client: [401],
  invalid_scope: [400],
  unsupported_grant_type: [400],
  slow_down: [429],
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JSON_TYPE = "application/json; charset=utf-8";

function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function envelopeProblems(value: unknown, status: number, requestId: string | undefined): string[] {
  if (!isRecord(value)) return ["body is not a JSON object"];
  const problems: string[] = [];
  const extra = Object.keys(value).filter((k) => !["success", "error", "meta"].includes(k));
  if (extra.length > 0) problems.push(`unexpected top-level members ${extra.join(", ")}`);
  if (value.success !== false) problems.push("success is not false");
  const error = value.error;
  if (!isRecord(error)) problems.push("error is not an object");
  else {
    const statuses = typeof error.code === "string" ? ERROR_CODES[error.code] : undefined;
    if (!statuses) problems.push(`error.code ${JSON.stringify(error.code)} is not a known code`);
    else if (!statuses.includes(status))
      problems.push(`error.code ${String(error.code)} does not belong to status ${status}`);
    if (typeof error.message !== "string" || error.message === "")
      problems.push("error.message is not a non-empty string");
    const details = error.details;
    if (
      details !== undefined &&
      !(
        Array.isArray(details) &&
        details.every(
          (d) => isRecord(d) && typeof d.field === "string" && typeof d.message === "string",
        )
      )
    ) {
      problems.push("error.details is not a list of { field, message }");
    }
    const unknown = Object.keys(error).filter((k) => !["code", "message", "details"].includes(k));
    if (unknown.length > 0) problems.push(`unexpected error members ${unknown.join(", ")}`);
  }
  const meta = value.meta;
  if (!isRecord(meta)) problems.push("meta is not an object");
  else {
    if (meta.api_version !== "v1") problems.push("meta.api_version is not v1");
    if (typeof meta.request_id !== "string" || !UUID.test(meta.request_id))
      problems.push("meta.request_id is not UUID-shaped");
    else if (meta.request_id !== requestId)
      problems.push("meta.request_id differs from the X-Request-Id header");
  }
  return problems;
}

function oauthProblems(value: unknown, status: number): string[] {
  if (!isRecord(value)) return ["token endpoint error body is not a JSON object"];
  const problems: string[] = [];
  const statuses = typeof value.error === "string" ? OAUTH_ERRORS[value.error] : undefined;
  if (!statuses) problems.push(`error ${JSON.stringify(value.error)} is not a known OAuth error`);
  else if (!statuses.includes(status))
    problems.push(`OAuth error ${String(value.error)} does not belong to status ${status}`);
  if (typeof value.error_description !== "string")
    problems.push("error_description is not a string");
  const extra = Object.keys(value).filter((k) => !["error", "error_description"].includes(k));
  if (extra.length > 0) problems.push(`unexpected members ${extra.join(", ")}`);
  return problems;
}

/**
 * Answered by the HTTP layer before any route (shared/http protocol-errors.ts), so in the envelope
 * on every path.
 */
const PROTOCOL_CODES = new Set(["REQUEST_HEADERS_TOO_LARGE", "REQUEST_TIMEOUT"]);

/** The token endpoint's own error bodies (RFC 6749) apply exactly where its route answers. */
function answersAsTokenEndpoint(request: HostileRequest, body: unknown): boolean {
  const protocolLevel =
    isRecord(body) && isRecord(body.error) && PROTOCOL_CODES.has(String(body.error.code));
  return (
    request.target === "gateway" &&
    request.rawHead === undefined &&
    request.path.split("?")[0] === "/oauth/token" &&
    !protocolLevel
  );
}

function isConditionalRead(request: HostileRequest): boolean {
  const conditional = (name: string) => /^if-(none-match|modified-since)$/i.test(name);
  const headers =
    request.rawHead !== undefined
      ? request.rawHead.split("\r\n").map((l) => l.split(":")[0] ?? "")
      : request.headers.map(([n]) => n);
  return (request.method === "GET" || request.method === "HEAD") && headers.some(conditional);
}

/** Every way the answer breaks the contract; empty when it is fine. */
export function contractProblems(request: HostileRequest, outcome: RawOutcome): string[] {
  if (outcome.kind === "timeout")
    return [
      `no complete answer within ${outcome.ms} ms (got ${JSON.stringify(outcome.partial.slice(0, 200))})`,
    ];
  if (outcome.kind === "closed")
    return [
      `connection closed without a complete answer after ${outcome.ms} ms${outcome.error ? ` (${outcome.error})` : ""} (got ${JSON.stringify(outcome.partial.slice(0, 200))})`,
    ];
  const { status, headers, body } = outcome.response;
  const problems: string[] = [];
  if (!Number.isInteger(status)) return ["the answer has no status line"];
  if (status >= 500) problems.push(`status ${status}`);
  // RFC 9110 13.1.2: If-None-Match: * (or a date) on a GET of an existing resource is rightly 304;
  // any other 3xx is not ours.
  if (status >= 300 && status < 400 && !(status === 304 && isConditionalRead(request)))
    problems.push(`unexpected redirection ${status}`);
  const requestId = headers["x-request-id"];
  if (requestId === undefined || !UUID.test(requestId))
    problems.push(`X-Request-Id header missing or not UUID-shaped: ${JSON.stringify(requestId)}`);
  if (status >= 200 && status < 300 && request.write)
    problems.push(`a write endpoint accepted a request that must be refused (status ${status})`);
  const hasBody = request.method !== "HEAD";
  if (status >= 400 && hasBody) {
    if (headers["content-type"] !== JSON_TYPE)
      problems.push(
        `error Content-Type is ${JSON.stringify(headers["content-type"])}, not ${JSON_TYPE}`,
      );
    const parsed = parseJson(body);
    if (!parsed.ok)
      problems.push(
        `error body is not JSON: ${JSON.stringify(body.subarray(0, 200).toString("latin1"))}`,
      );
    else
      problems.push(
        ...(answersAsTokenEndpoint(request, parsed.value)
          ? oauthProblems(parsed.value, status)
          : envelopeProblems(parsed.value, status, requestId)),
      );
  }
  if (status === 405 && headers.allow === undefined) problems.push("405 without an Allow header");
  if (status === 401 && headers["www-authenticate"] === undefined)
    problems.push("401 without a WWW-Authenticate header");
  if (status >= 200 && status < 300 && hasBody && body.length > 0) {
    if (!(headers["content-type"] ?? "").startsWith("application/json"))
      problems.push(`success Content-Type is ${JSON.stringify(headers["content-type"])}`);
    else if (!parseJson(body).ok) problems.push("success body is not JSON");
  }
  return problems;
}

/** A short account of an answer for a failure report (bodies cut; token responses never shown). */
export function describeOutcome(outcome: RawOutcome): string {
  if (outcome.kind !== "response") return `${outcome.kind} after ${outcome.ms} ms`;
  const { status, headers, body } = outcome.response;
  const text = body.toString("utf8");
  const shown = /access_token/.test(text)
    ? "<token response withheld>"
    : text.length > 400
      ? `${text.slice(0, 400)}…`
      : text;
  return `${status} (${outcome.ms} ms) content-type=${headers["content-type"] ?? "-"} x-request-id=${headers["x-request-id"] ?? "-"}${headers.allow ? ` allow=${headers.allow}` : ""}\n  ${shown}`;
}
