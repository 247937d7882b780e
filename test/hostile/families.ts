/**
 * The request generators, one per family of hostile input. Every request to a write endpoint is
 * invalid by construction (a broken body, a bad version header, an id that cannot exist, a token
 * request that can never succeed), whatever else the generator varies.
 */
import fc from "fast-check";
import {
  ENDPOINTS,
  UNKNOWN_PATHS,
  invalidJsonBody,
  type Endpoint,
  type IdKind,
} from "./endpoints.ts";
import { structurallyBadBody, type BodySpec } from "./json-bodies.ts";
import {
  pathOf,
  printable,
  wireSafe,
  type AuthSpec,
  type HostileRequest,
  type Tamper,
} from "./requests.ts";
import { hostileQuery, hostileSegment, hostileText, longText, percentEncode } from "./strings.ts";

export interface GenerationContext {
  /** Ids that exist, per kind; used on read endpoints only. */
  realIds: Partial<Record<IdKind, string[]>>;
  /**
   * A CRM modified_on that is valid now (the bases' value; every mutation list still breaks the
   * body).
   */
  modifiedOn: string;
  demoClientId: string;
}

const TAMPERS: Tamper[] = [
  "signature",
  "payload",
  "alg-none",
  "hs256",
  "truncated",
  "no-scheme",
  "lowercase-scheme",
  "double-token",
  "trailing-garbage",
];
const GARBAGE_AUTH = [
  "",
  "Bearer",
  "Bearer ",
  "Bearer  ",
  "Basic dXNlcjpwYXNz",
  'Digest username="x"',
  "Negotiate YIIB",
  "Bearer a.b.c",
  "Bearer eyJhbGciOiJub25lIn0.e30.",
  "Bearer ....",
  "Bearer %00",
  "Bearer null",
  "Bearer undefined",
  "Token abc",
  "Bearer\tabc",
  "AWS4-HMAC-SHA256 Credential=x",
  "Bearer ÿÿÿÿ",
  "bearer",
  "BEARER abc.def.ghi",
];

export const authArb: fc.Arbitrary<AuthSpec> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<AuthSpec>({ kind: "valid" }) },
  { weight: 1, arbitrary: fc.constant<AuthSpec>({ kind: "narrow" }) },
  { weight: 1, arbitrary: fc.constant<AuthSpec>({ kind: "none" }) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(...TAMPERS)
      .map((tamper): AuthSpec => ({ kind: "tampered", tamper })),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.constantFrom(...GARBAGE_AUTH),
        longText(12_000).map((t) => `Bearer ${t}`),
        hostileText.map((t) => `Bearer ${t}`),
      )
      .map((value): AuthSpec => ({ kind: "header", value: latin1Safe(value) })),
  },
);
const mostlyValid = fc.oneof(
  { weight: 8, arbitrary: fc.constant<AuthSpec>({ kind: "valid" }) },
  { weight: 1, arbitrary: authArb },
);

/**
 * Header values are written as latin1 bytes. Control characters other than tab (CR, LF, NUL, DEL…)
 * make the request invalid HTTP: those belong to the protocol family only.
 */
function latin1Safe(value: string): string {
  return (
    [...value]
      .map((ch) => ((ch.codePointAt(0) ?? 0) > 0xff ? "?" : ch))
      .join("")
      // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
      .replace(/[\x00-\x08\x0a-\x1f\x7f]/g, " ")
  );
}

export const CONTENT_TYPES = [
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "application/json; charset=utf-16",
  'application/json; charset="utf-8"; charset=ascii',
  "application/json;;;",
  "text/plain",
  "text/json",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/merge-patch+json",
  "application/vnd.api+json",
  "APPLICATION/JSON",
  "application/json, text/plain",
  "*/*",
  "application/*",
  "",
  ";",
  'application/json; boundary="',
  `application/json; x=${"a".repeat(3_000)}`,
];
const contentTypeArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant("application/json") },
  { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

const idempotencyKeyValid = fc.stringMatching(/^[\x21-\x7e]{1,64}$/);
const idempotencyKeyInvalid = fc.oneof(
  fc.constantFrom("", " ", "\t", "ÿ", "é", "key\tkey"),
  longText(2_000)
    .filter((s) => s.length > 255)
    .map(latin1Safe),
  hostileText
    .map(latin1Safe)
    .filter((s) => !/^[\x20-\x7e]{1,255}$/.test(s.trim()) && s.trim() !== ""),
);
/**
 * CRM-Modified-On values a delete must refuse (never a valid date-time with offset within the
 * hour).
 */
const crmVersionInvalid = fc.oneof(
  fc.constantFrom(
    "",
    "yesterday",
    "2025-06-01",
    "2025-06-01T10:00:00",
    "2025-02-30T10:00:00Z",
    "1969-01-01T00:00:00Z",
    "2999-01-01T00:00:00Z",
    "0",
    "-1",
    "2025-06-01T10:00:00+25:00",
  ),
  hostileText.map(latin1Safe).filter((s) => !/\d{4}-\d{2}-\d{2}T/.test(s)),
);

const HOSTILE_HEADER_NAMES = [
  "X-Request-Id",
  "X-Forwarded-For",
  "X-Forwarded-Host",
  "X-Forwarded-Proto",
  "Forwarded",
  "X-Real-IP",
  "X-Original-URL",
  "X-Rewrite-URL",
  "X-HTTP-Method-Override",
  "Accept",
  "Accept-Encoding",
  "Accept-Language",
  "Accept-Charset",
  "Content-Encoding",
  "Range",
  "If-None-Match",
  "If-Modified-Since",
  "Origin",
  "Referer",
  "Cookie",
  "User-Agent",
  "Via",
  "Max-Forwards",
  "Prefer",
  "Traceparent",
  "Tracestate",
  "Baggage",
  "Idempotency-Key",
  "CRM-Modified-On",
  "Upgrade",
  "TE",
  "Trailer",
  "Expect",
  "Content-Language",
  "X-SVC-Signature",
  "Authorization",
];
const HEADER_VALUES = [
  "",
  " ",
  "null",
  "*",
  "application/xml",
  "gzip",
  "br",
  "deflate",
  "identity",
  "compress",
  "x-gzip, gzip",
  "bytes=0-0",
  "bytes=-1",
  "bytes=0-0,1-1,2-2",
  'W/"x"',
  "Wed, 21 Oct 2015 07:28:00 GMT",
  "garbage-date",
  "127.0.0.1",
  "::1",
  'for="[::1]";proto=https',
  "https://evil.example",
  "DELETE",
  "PUT",
  "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
  "00-zz-zz-zz",
  "websocket",
  "h2c",
  "trailers",
  "100-continue",
  "expect-the-unexpected",
  "max-age=0",
];
const hostileHeader: fc.Arbitrary<[string, string]> = fc
  .tuple(
    fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...HOSTILE_HEADER_NAMES) },
      { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,40}$/) },
    ),
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...HEADER_VALUES) },
      { weight: 3, arbitrary: hostileText.map(latin1Safe) },
      { weight: 1, arbitrary: longText(8_000).map(latin1Safe) },
    ),
  )
  .map(([n, v]): [string, string] => [n, v.trim() === "" && v !== "" ? "x" : v]);

const encodedReal = (ids: string[]) => ids.map((id) => percentEncode(id));

/**
 * An id for a path: real ones only on read endpoints, so a write can never hit something that
 * exists.
 */
function idArb(
  kind: IdKind,
  endpoint: Endpoint,
  ctx: GenerationContext,
  hostileWeight = 4,
): fc.Arbitrary<string> {
  const real = endpoint.write ? [] : encodedReal(ctx.realIds[kind] ?? []);
  return fc.oneof(
    { weight: hostileWeight, arbitrary: hostileSegment },
    { weight: 1, arbitrary: fc.uuid() },
    {
      weight: real.length > 0 ? 2 : 0,
      arbitrary: real.length > 0 ? fc.constantFrom(...real) : fc.constant("x"),
    },
  );
}

const idsArb = (endpoint: Endpoint, ctx: GenerationContext, hostileWeight?: number) =>
  fc.tuple(
    ...(endpoint.ids ?? []).map((k) => idArb(k, endpoint, ctx, hostileWeight)),
  ) as fc.Arbitrary<string[]>;

/**
 * Form bodies the token endpoint must refuse whatever the credentials: no or another grant,
 * repeated parameters.
 */
const oauthInvalidForm = fc.oneof(
  fc.constantFrom(
    "",
    "grant_type=",
    "grant_type=password&username=a&password=b",
    "grant_type=authorization_code&code=x",
    "grant_type=client_credentials&grant_type=client_credentials",
    "grant_type=CLIENT_CREDENTIALS",
    "grant_type=client_credentials%00",
    "scope=vacancies:read",
    "grant_type=client_credentials&scope=vacancies:read&scope=webhooks:read",
    "grant_type[]=client_credentials",
    "grant_type=client_credentials&scope=crm-mirror:write",
    "grant_type=client_credentials&scope=%FF",
    "grant_type=client_credentials&scope=no.such.scope",
  ),
  hostileText
    .map((t) => `grant_type=${percentEncode(t)}`)
    .filter((s) => s !== "grant_type=client_credentials"),
);

/** What makes a request to this endpoint one that must be refused, whatever the family varies. */
function invalidity(
  endpoint: Endpoint,
  ctx: GenerationContext,
): fc.Arbitrary<{ body?: BodySpec; contentType?: string; headers: Array<[string, string]> }> {
  switch (endpoint.body) {
    case "application":
    case "webhook-create":
    case "webhook-patch":
    case "crm-put":
    case "crm-bulk":
      return invalidJsonBody(endpoint.body, ctx.modifiedOn).map((value) => ({
        body: { kind: "json", value },
        contentType: "application/json",
        headers: [],
      }));
    case "oauth-form":
      return oauthInvalidForm.map((text) => ({
        body: { kind: "text", text },
        contentType: "application/x-www-form-urlencoded",
        headers: [],
      }));
    default:
      if (endpoint.name === "crm mirror delete")
        return fc
          .option(crmVersionInvalid, { nil: undefined })
          .map((v) => ({ headers: v === undefined ? [] : [["CRM-Modified-On", v]] }));
      return fc.constant({ headers: [] });
  }
}

function request(
  endpoint: Endpoint,
  family: string,
  parts: Partial<HostileRequest> & { path: string },
): HostileRequest {
  return printable({
    family,
    endpoint: endpoint.name,
    target: endpoint.target,
    method: endpoint.method,
    auth: { kind: "valid" },
    headers: [],
    write: endpoint.write,
    ...parts,
  });
}

export function pathFamily(ctx: GenerationContext): fc.Arbitrary<HostileRequest> {
  const withIds = ENDPOINTS.filter((e) => e.ids);
  const known = fc
    .constantFrom(...withIds)
    .chain((e) =>
      fc
        .tuple(idsArb(e, ctx), mostlyValid, invalidity(e, ctx))
        .map(([ids, auth, inv]) => request(e, "path ids", { path: pathOf(e, ids), auth, ...inv })),
    );
  const gatewayList = ENDPOINTS.filter((e) => e.target === "gateway");
  const unknown = fc
    .tuple(
      fc.oneof(
        fc.constantFrom(...UNKNOWN_PATHS),
        fc.constantFrom(...gatewayList).map((e) => e.path.replace(/\{id\}.*$/, "")),
      ),
      fc.array(hostileSegment, { maxLength: 3 }),
      fc.constantFrom("GET", "POST", "DELETE"),
      mostlyValid,
    )
    .map(([base, segments, method, auth]) => {
      const path = wireSafe([base.replace(/\/$/, ""), ...segments].join("/") || "/");
      return printable({
        family: "path ids",
        endpoint: "unknown path",
        target: "gateway" as const,
        method,
        path,
        auth,
        headers: [],
        write: method !== "GET",
      });
    });
  return fc.oneof({ weight: 5, arbitrary: known }, { weight: 1, arbitrary: unknown });
}

export function queryFamily(ctx: GenerationContext): fc.Arbitrary<HostileRequest> {
  return fc
    .constantFrom(...ENDPOINTS)
    .chain((e) =>
      fc
        .tuple(
          idsArb(e, ctx, 1),
          hostileQuery(Object.keys(e.query ?? {}), e.query ?? {}),
          mostlyValid,
          invalidity(e, ctx),
        )
        .map(([ids, query, auth, inv]) =>
          request(e, "query strings", { path: pathOf(e, ids, query), auth, ...inv }),
        ),
    );
}

export function bodyFamily(ctx: GenerationContext): fc.Arbitrary<HostileRequest> {
  const withBodies = ENDPOINTS.filter((e) => e.body !== undefined && e.body !== "oauth-form");
  return fc.constantFrom(...withBodies).chain((e) => {
    const body: fc.Arbitrary<BodySpec | undefined> = fc.oneof(
      {
        weight: e.body === "empty" ? 1 : 5,
        arbitrary: invalidJsonBody(e.body ?? "empty", ctx.modifiedOn).map((value): BodySpec => ({
          kind: "json",
          value,
        })),
      },
      { weight: 3, arbitrary: structurallyBadBody(e.bodyLimit ?? 256 * 1024) },
    );
    const key =
      e.body === "application"
        ? fc.option(idempotencyKeyValid, { nil: undefined })
        : fc.constant(undefined);
    const version = e.name === "crm mirror delete" ? crmVersionInvalid : fc.constant(undefined);
    return fc
      .tuple(idsArb(e, ctx, 1), body, contentTypeArb, key, version, mostlyValid)
      .map(([ids, b, contentType, k, v, auth]) => {
        const headers: Array<[string, string]> = [];
        if (k !== undefined) headers.push(["Idempotency-Key", k]);
        if (v !== undefined) headers.push(["CRM-Modified-On", v]);
        return request(e, "json bodies", {
          path: pathOf(e, ids),
          auth,
          headers,
          ...(b ? { body: b } : {}),
          ...(contentType !== undefined ? { contentType } : {}),
        });
      });
  });
}

export function headerFamily(ctx: GenerationContext): fc.Arbitrary<HostileRequest> {
  return fc.constantFrom(...ENDPOINTS).chain((e) => {
    const special: fc.Arbitrary<Array<[string, string]>> =
      e.body === "application"
        ? fc
            .option(idempotencyKeyInvalid, { nil: undefined })
            .map((k) => (k === undefined ? [] : [["Idempotency-Key", k]]))
        : fc.constant([]);
    return fc
      .tuple(
        idsArb(e, ctx, 1),
        authArb,
        invalidity(e, ctx),
        fc.array(hostileHeader, { maxLength: 4 }),
        special,
        fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined, freq: 3 }),
      )
      .map(([ids, auth, inv, extra, sp, contentType]) =>
        request(e, "headers", {
          path: pathOf(e, ids),
          auth,
          ...inv,
          ...(inv.body && contentType !== undefined ? { contentType } : {}),
          headers: [...inv.headers, ...sp, ...extra],
        }),
      );
  });
}

const METHODS = [
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
  "TRACE",
  "PROPFIND",
  "PROPPATCH",
  "MKCOL",
  "COPY",
  "MOVE",
  "LOCK",
  "UNLOCK",
  "SEARCH",
  "PURGE",
  "LINK",
  "UNLINK",
  "REPORT",
  "MKACTIVITY",
  "CHECKOUT",
  "MERGE",
  "M-SEARCH",
  "NOTIFY",
  "SUBSCRIBE",
  "UNSUBSCRIBE",
  "QUERY",
  "ACL",
  "BIND",
  "REBIND",
  "UNBIND",
  "SOURCE",
];

export function methodFamily(ctx: GenerationContext): fc.Arbitrary<HostileRequest> {
  void ctx;
  return fc.constantFrom(...ENDPOINTS).chain((e) =>
    fc
      .tuple(
        fc.tuple(...(e.ids ?? []).map(() => fc.uuid())),
        fc.constantFrom(...METHODS),
        mostlyValid,
      )
      .map(([ids, method, auth]) =>
        // Only reads may succeed: every other method meets a path that takes no such request, an id
        // that does not exist, or no body.
        request(e, "methods", {
          method,
          path: pathOf(e, ids as string[]),
          auth,
          write: method !== "GET" && method !== "HEAD",
        }),
      ),
  );
}
