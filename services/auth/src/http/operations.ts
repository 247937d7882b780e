/**
 * The auth service's public operations, declared once: the token endpoint, the OpenAPI document
 * itself and its reference page. The router mounts these paths; tools/openapi.ts builds the
 * document from them. The scopes' descriptions live here, beside the service that grants them.
 */
import { z } from "zod";
import type { Scope } from "@svc/auth";
import type { NamedSchema, OperationSpec, SameKeys, TagSpec, ServiceOpenApi } from "@svc/openapi";
import {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  type TokenResponse,
} from "../domain/token/token-service.ts";

/** The contract's production scopes: what each grants. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  "practices:read": "Read practices.",
  "vacancies:read": "Read vacancies.",
  "candidates:read": "Read candidate identities.",
  "applications:read": "Read applications.",
  "applications:write": "Create applications and (production) record submitted applications.",
  "recruitment-cases:read": "Read recruitment cases.",
  "webhooks:read": "Read own webhook subscriptions and their deliveries.",
  "webhooks:write": "Manage own webhook subscriptions.",
  "crm-mirror:write":
    "Write CRM records to the mirror; only for the dedicated CRM mirror client. Production only: the sandbox has no such scope.",
};

export const AUTH_TAGS: TagSpec[] = [
  {
    name: "OAuth",
    description:
      "OAuth 2.0 client credentials (RFC 6749): server to server, no user, no refresh token.",
  },
  {
    name: "Platform",
    description: "Public endpoints every service answers, this document and its reference page.",
  },
];

const tokenResponseSchema = z.strictObject({
  access_token: z
    .string()
    .meta({ description: "An RFC 9068 JWT (ES256); send it as `Authorization: Bearer <token>`." }),
  token_type: z.literal("Bearer"),
  expires_in: z
    .literal(ACCESS_TOKEN_LIFETIME_SECONDS)
    .meta({ description: "Seconds; tokens live one hour." }),
  scope: z.string().meta({ description: "The granted scopes, space-separated." }),
});
export const _tokenKeys: SameKeys<TokenResponse, z.output<typeof tokenResponseSchema>> = true;

const OAUTH_ERRORS = [
  "invalid_request",
  "invalid_client",
  "invalid_scope",
  "unsupported_grant_type",
  "slow_down",
  "temporarily_unavailable",
  "server_error",
] as const;
const oauthError: NamedSchema = {
  name: "OAuthError",
  description: "RFC 6749 5.2 error body, not the `/v1` error envelope.",
  schema: z.strictObject({ error: z.enum(OAUTH_ERRORS), error_description: z.string() }),
};

/** RFC 6749 5.1: every answer of the token endpoint, errors included, forbids caching. */
const noStore = {
  "Cache-Control": { description: "RFC 6749 5.1.", schema: { const: "no-store" }, required: true },
  Pragma: { description: "RFC 6749 5.1.", schema: { const: "no-cache" }, required: true },
};
const retryAfter = {
  "Retry-After": {
    description: "Seconds to wait.",
    schema: { type: "string", pattern: "^\\d+$" },
    required: true,
  },
};
const error = (description: string, headers: Record<string, unknown> = {}) => ({
  description,
  body: { raw: oauthError },
  headers: { ...noStore, ...headers },
});

export const tokenOperation = {
  operationId: "requestToken",
  method: "post",
  path: "/oauth/token",
  summary: "Obtain an access token",
  description:
    "Client credentials grant. The client id and secret go in an HTTP Basic Authorization header (form-encoded, then base64). A token request without `scope` yields every scope of the client; the answer's `scope` lists them. Unknown client, wrong secret, revoked and expired clients all get the same 401.",
  tag: "OAuth",
  auth: { clientCredentials: true },
  requestBody: {
    contentType: "application/x-www-form-urlencoded",
    schema: {
      name: "TokenRequest",
      schema: {
        type: "object",
        required: ["grant_type"],
        properties: {
          grant_type: { const: "client_credentials" },
          scope: {
            type: "string",
            description:
              "Space-separated scopes; empty or absent: all scopes of the client. A scope that does not exist or is not assigned is 400 invalid_scope.",
          },
        },
      },
    },
  },
  responses: {
    200: {
      description: "An access token (not in the envelope).",
      body: { raw: { name: "TokenResponse", schema: tokenResponseSchema } },
      headers: noStore,
    },
    400: error(
      "`invalid_request` (grant_type missing, request malformed, parameters in the URL or repeated), `invalid_scope`, `unsupported_grant_type`.",
    ),
    401: error(
      "`invalid_client`: unknown client, wrong secret, revoked or expired client (one response for all four).",
      {
        "WWW-Authenticate": {
          description: "The Basic challenge.",
          schema: { type: "string", pattern: "^Basic " },
          required: true,
        },
      },
    ),
    413: error("`invalid_request`: the body is too large."),
    429: error(
      "`slow_down`: too many token requests from this address or for this client.",
      retryAfter,
    ),
    500: error("`server_error`."),
    503: error(
      "`temporarily_unavailable`: the service cannot verify secrets now (busy, or its database is unreachable).",
      retryAfter,
    ),
  },
  otherMethods: error("`invalid_request`: the token endpoint takes POST only.", {
    Allow: { description: "`POST`.", schema: { const: "POST" }, required: true },
  }),
} as const satisfies OperationSpec;

export const openApiOperation = {
  operationId: "getOpenApiDocument",
  method: "get",
  path: "/openapi.json",
  summary: "This OpenAPI document",
  description:
    "Public. The OpenAPI 3.1 description of the whole public API; `info.version` is the installation's version.",
  tag: "Platform",
  auth: { public: true },
  responses: {
    200: {
      description: "The document.",
      body: {
        raw: {
          type: "object",
          required: ["openapi", "info", "paths"],
          properties: {
            openapi: { type: "string", pattern: "^3\\.1\\." },
            info: { type: "object" },
            paths: { type: "object" },
          },
        },
      },
    },
  },
} as const satisfies OperationSpec;

/** The files of the reference page (GET /reference/{file}), by name, with their Content-Type. */
export const REFERENCE_FILES = {
  "renderer.js": { type: "text/javascript; charset=utf-8" },
  "renderer.css": { type: "text/css; charset=utf-8" },
  "reference.js": { type: "text/javascript; charset=utf-8" },
} as const;

export const referenceOperation = {
  operationId: "getApiReference",
  method: "get",
  path: "/reference",
  summary: "This document, as a web page",
  description:
    "Public. The API reference: this document rendered in the browser (Swagger UI, served by this installation; the page loads nothing from elsewhere).",
  tag: "Platform",
  auth: { public: true },
  responses: {
    200: {
      description: "The page.",
      body: { raw: { type: "string" }, contentType: "text/html" },
      headers: {
        "Content-Security-Policy": {
          description: "Scripts, styles and requests from this origin only.",
          schema: { type: "string", pattern: "script-src 'self'" },
          required: true,
        },
      },
    },
  },
} as const satisfies OperationSpec;

export const referenceFileOperation = {
  operationId: "getApiReferenceFile",
  method: "get",
  path: "/reference/{file}",
  summary: "A file of the reference page",
  description: "Public. The scripts and the stylesheet GET /reference loads.",
  tag: "Platform",
  auth: { public: true },
  pathParams: {
    file: {
      description: "The file's name.",
      schema: { type: "string", enum: Object.keys(REFERENCE_FILES) },
    },
  },
  responses: {
    200: {
      description: "The file.",
      body: { raw: { type: "string" }, contentType: ["text/javascript", "text/css"] },
    },
  },
  errors: { 404: ["NOT_FOUND"] },
} as const satisfies OperationSpec;

export const AUTH_OPERATIONS: ReadonlyArray<OperationSpec> = [
  tokenOperation,
  openApiOperation,
  referenceOperation,
  referenceFileOperation,
];

/** This service's part of the OpenAPI document (tools/openapi.ts). */
export const OPENAPI: ServiceOpenApi = {
  tags: AUTH_TAGS,
  operations: AUTH_OPERATIONS,
  scopes: SCOPE_DESCRIPTIONS,
};
