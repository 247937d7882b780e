/**
 * A hostile request as data (what fast-check generates and shrinks, and what a failure prints),
 * and how it becomes bytes on the wire. Tokens are referred to, never embedded, so a printed
 * counterexample carries no credential.
 */
import fc from "fast-check";
import { encodeRequest } from "../support/raw-http.ts";
import { describeBody, renderBody, type BodySpec } from "./json-bodies.ts";
import type { Endpoint, Target } from "./endpoints.ts";

export type Tamper =
  | "signature"
  | "payload"
  | "alg-none"
  | "hs256"
  | "truncated"
  | "no-scheme"
  | "lowercase-scheme"
  | "double-token"
  | "trailing-garbage";
export type AuthSpec =
  | { kind: "valid" }
  /** A valid token of the same issuer without the endpoint's scope. */
  | { kind: "narrow" }
  | { kind: "none" }
  | { kind: "tampered"; tamper: Tamper }
  /** The Authorization header exactly as given (no token inside). */
  | { kind: "header"; value: string };

export interface HostileRequest {
  family: string;
  endpoint: string;
  target: Target;
  method: string;
  /** The request target as written on the request line. */
  path: string;
  auth: AuthSpec;
  contentType?: string;
  headers: Array<[string, string]>;
  body?: BodySpec;
  /** The endpoint changes data when it accepts: a 2xx is a finding. */
  write: boolean;
  /**
   * The protocol family: the whole request head as latin1 text, with `{TOKEN}` standing for a
   * valid token of the target; replaces method, path, auth and headers.
   */
  rawHead?: string;
}

export interface Tokens {
  /** Every scope the target's clients may have. */
  all: string;
  /** A token whose only scope is `scope`. */
  only(scope: string): string;
}

export interface RenderContext {
  ports: Record<Target, number>;
  tokens: Record<Target, Tokens>;
}

const b64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");

function tampered(token: string, tamper: Tamper): string {
  const [header = "", payload = "", signature = ""] = token.split(".");
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<
    string,
    unknown
  >;
  const escalated = b64url(
    JSON.stringify({
      ...claims,
      scope: `${String(claims.scope)} crm-mirror:write admin`,
      exp: 4_102_444_800,
    }),
  );
  switch (tamper) {
    case "signature":
      return `${header}.${payload}.${signature.slice(0, -6)}${signature.slice(-6).split("").reverse().join("")}`;
    case "payload":
      return `${header}.${escalated}.${signature}`;
    case "alg-none":
      return `${b64url(JSON.stringify({ alg: "none", typ: "at+jwt" }))}.${escalated}.`;
    case "hs256":
      return `${b64url(JSON.stringify({ alg: "HS256", typ: "at+jwt" }))}.${escalated}.${signature.slice(0, 43)}`;
    case "truncated":
      return token.slice(0, token.length - 10);
    default:
      return token;
  }
}

function authorizationOf(
  auth: AuthSpec,
  target: Target,
  scope: string | undefined,
  ctx: RenderContext,
): string | undefined {
  const tokens = ctx.tokens[target];
  switch (auth.kind) {
    case "none":
      return undefined;
    case "header":
      return auth.value;
    case "valid":
      return `Bearer ${tokens.all}`;
    case "narrow":
      return `Bearer ${tokens.only(scope === "vacancies:read" ? "webhooks:read" : "vacancies:read")}`;
    case "tampered": {
      const t = tokens.all;
      if (auth.tamper === "no-scheme") return t;
      if (auth.tamper === "lowercase-scheme") return `bearer ${t}`;
      if (auth.tamper === "double-token") return `Bearer ${t} ${t}`;
      if (auth.tamper === "trailing-garbage") return `Bearer ${t}.x`;
      return `Bearer ${tampered(t, auth.tamper)}`;
    }
  }
}

export interface Wire {
  port: number;
  method: string;
  bytes: Buffer;
}

export function render(
  request: HostileRequest,
  scope: string | undefined,
  ctx: RenderContext,
): Wire {
  const port = ctx.ports[request.target];
  const body = request.body ? renderBody(request.body) : undefined;
  if (request.rawHead !== undefined) {
    const head = request.rawHead.replaceAll("{TOKEN}", ctx.tokens[request.target].all);
    return {
      port,
      method: request.method,
      bytes: Buffer.concat([Buffer.from(head, "latin1"), body ?? Buffer.alloc(0)]),
    };
  }
  const headers: Array<[string, string]> = [];
  const authorization = authorizationOf(request.auth, request.target, scope, ctx);
  if (authorization !== undefined) headers.push(["Authorization", authorization]);
  headers.push(["Accept", "application/json"]);
  if (request.contentType !== undefined) headers.push(["Content-Type", request.contentType]);
  headers.push(...request.headers);
  const bytes = encodeRequest(
    { method: request.method, target: request.path, headers, ...(body ? { body } : {}) },
    { host: `127.0.0.1:${port}` },
  );
  return { port, method: request.method, bytes };
}

const show = (text: string, max = 300) => {
  const printable = JSON.stringify(
    text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text,
  );
  return printable.slice(1, -1);
};

/** The request for a report: never a token, bodies and long values abbreviated. */
export function describe(request: HostileRequest): string {
  if (request.rawHead !== undefined) {
    return `[${request.family}] ${request.endpoint} → ${request.target}\n  raw: ${show(request.rawHead, 600)}${request.body ? `\n  body: ${describeBody(request.body)}` : ""}`;
  }
  const auth =
    request.auth.kind === "header"
      ? `Authorization: ${show(request.auth.value, 120)}`
      : request.auth.kind === "tampered"
        ? `token tampered (${request.auth.tamper})`
        : `token: ${request.auth.kind}`;
  const lines = [
    `[${request.family}] ${request.endpoint} → ${request.target}`,
    `  ${request.method} ${show(request.path, 500)}`,
    `  ${auth}`,
  ];
  if (request.contentType !== undefined)
    lines.push(`  Content-Type: ${show(request.contentType, 120)}`);
  for (const [name, value] of request.headers)
    lines.push(`  ${show(name, 80)}: ${show(value, 160)}`);
  if (request.body) lines.push(`  body: ${describeBody(request.body)}`);
  return lines.join("\n");
}

/** Gives generated requests a compact printout in fast-check's counterexample report. */
export function printable(request: HostileRequest): HostileRequest {
  return Object.assign(request, { [fc.toStringMethod]: () => describe(request) });
}

/**
 * A request target that is valid HTTP syntax whatever the generated parts hold: bytes a request
 * line cannot carry (space, controls, non-ASCII, `#`) are percent-encoded. Broken requests
 * belong to the protocol family; the other families test what the services do with the values.
 */
export function wireSafe(target: string): string {
  return [...target]
    .map((ch) =>
      /^[\x21-\x7e]$/.test(ch) && ch !== "#"
        ? ch
        : [...Buffer.from(ch, "utf8")]
            .map((b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`)
            .join(""),
    )
    .join("");
}

/** Fills an endpoint's `{id}` placeholders in order. */
export function pathOf(endpoint: Endpoint, ids: ReadonlyArray<string>, query?: string): string {
  let i = 0;
  const path = endpoint.path.replace(/\{id\}/g, () => ids[i++] ?? "x");
  return wireSafe(query === undefined ? path : `${path}?${query}`);
}
