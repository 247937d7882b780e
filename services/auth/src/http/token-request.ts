import type { Request } from "express";
import { oauthErrors } from "../domain/token/oauth-error.ts";
import type { ClientCredentials, TokenRequest } from "../domain/token/token-request.ts";
import { parseBasicCredentials } from "./basic-credentials.ts";

/**
 * Parameters that must appear at most once (RFC 6749 3.2); unknown ones are ignored (RFC 6749 3.1).
 */
const SINGLE = ["grant_type", "scope", "client_id", "client_secret"] as const;
const UTF8 = new TextDecoder("utf-8", { fatal: true });
// RFC 6749 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

function formBody(req: Request): URLSearchParams {
  if (!req.is("application/x-www-form-urlencoded")) {
    throw oauthErrors.invalidRequest("the request body must be application/x-www-form-urlencoded");
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(req.get("content-type") ?? "")?.[1];
  if (charset !== undefined && charset.toLowerCase() !== "utf-8")
    throw oauthErrors.invalidRequest("the request body must be UTF-8");
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  try {
    return new URLSearchParams(UTF8.decode(raw));
  } catch {
    throw oauthErrors.invalidRequest("the request body is not UTF-8");
  }
}

function singleParameters(
  params: URLSearchParams,
): Partial<Record<(typeof SINGLE)[number], string>> {
  const values: Partial<Record<(typeof SINGLE)[number], string>> = {};
  for (const name of SINGLE) {
    const all = params.getAll(name);
    if (all.length > 1) throw oauthErrors.invalidRequest(`the parameter ${name} is repeated`);
    if (all[0] !== undefined) values[name] = all[0];
  }
  return values;
}

function requestedScopes(
  scope: string | undefined,
  known: ReadonlySet<string>,
): string[] | undefined {
  const tokens = (scope ?? "").split(" ").filter((s) => s !== "");
  if (tokens.length === 0) return undefined;
  for (const token of tokens) {
    if (!SCOPE_TOKEN.test(token) || !known.has(token))
      throw oauthErrors.invalidScope(`the scope '${token}' does not exist`);
  }
  return [...new Set(tokens)];
}

function credentialsOf(req: Request, inBody: boolean): ClientCredentials {
  // An empty header is no header.
  const authorization = req.get("authorization") || undefined;
  if (authorization !== undefined && inBody)
    throw oauthErrors.invalidRequest(
      "client credentials must be sent once: in the Authorization header only",
    );
  // HTTP Basic is the one client authentication method; none, or another, is invalid_client.
  const credentials =
    authorization === undefined ? undefined : parseBasicCredentials(authorization);
  if (!credentials)
    throw authorization === undefined && inBody
      ? oauthErrors.credentialsInBody()
      : oauthErrors.invalidClient();
  return credentials;
}

/**
 * Validates everything that needs no client: method-independent syntax, grant type, and whether
 * each requested scope exists in this environment. Cheap, so it runs before any argon2 work.
 */
export function parseTokenRequest(req: Request, knownScopes: ReadonlySet<string>): TokenRequest {
  if (req.originalUrl.includes("?"))
    throw oauthErrors.invalidRequest("parameters belong in the request body, not the URL");
  const params = singleParameters(formBody(req));
  const inBody = params.client_id !== undefined || params.client_secret !== undefined;
  if (params.grant_type === undefined || params.grant_type === "")
    throw oauthErrors.invalidRequest("grant_type is required");
  if (params.grant_type !== "client_credentials") throw oauthErrors.unsupportedGrantType();
  const scopes = requestedScopes(params.scope, knownScopes);
  return { credentials: credentialsOf(req, inBody), scopes };
}
