/**
 * Access tokens by the client-credentials grant: HTTP Basic credentials (form-encoded, then
 * base64) and a form body, kept in memory and renewed shortly before they expire. Concurrent
 * callers share one token request.
 */
import { retryAfterSeconds, TokenError } from "./errors.ts";

export type TokenOptions = {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes; without it the token carries every scope of the client. */
  scope?: string;
  /** Renew this long before the token expires (default 60 s). */
  refreshBeforeMs?: number;
  fetch: typeof fetch;
};

type Token = { accessToken: string; renewAt: number };

/** `application/x-www-form-urlencoded` encoding of one value (RFC 6749 §2.3.1). */
function formEncode(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");
}

export class TokenSource {
  readonly #options: TokenOptions;
  #token: Token | null = null;
  #pending: Promise<Token> | null = null;

  constructor(options: TokenOptions) {
    this.#options = options;
  }

  /** A valid access token: the cached one, or a new one when it is due for renewal. */
  async get(): Promise<string> {
    if (this.#token && Date.now() < this.#token.renewAt) return this.#token.accessToken;
    this.#pending ??= this.#request().finally(() => (this.#pending = null));
    this.#token = await this.#pending;
    return this.#token.accessToken;
  }

  /** Forget the cached token (the API refused it), so the next get() asks for a new one. */
  invalidate(token: string): void {
    if (this.#token?.accessToken === token) this.#token = null;
  }

  async #request(): Promise<Token> {
    const { baseUrl, clientId, clientSecret, scope, refreshBeforeMs = 60_000 } = this.#options;
    const form = new URLSearchParams({ grant_type: "client_credentials" });
    if (scope) form.set("scope", scope);
    const response = await this.#options.fetch(new URL("/oauth/token", baseUrl), {
      method: "POST",
      headers: {
        authorization: `Basic ${btoa(`${formEncode(clientId)}:${formEncode(clientSecret)}`)}`,
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: form.toString(),
    });
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok || typeof body.access_token !== "string") {
      const error = typeof body.error === "string" ? body.error : `http_${response.status}`;
      const description = String(body.error_description ?? response.statusText);
      throw new TokenError(
        response.status,
        error,
        description,
        retryAfterSeconds(response.headers),
      );
    }
    const lifetimeMs = Number(body.expires_in) * 1000;
    return {
      accessToken: body.access_token,
      renewAt: Date.now() + Math.max(0, lifetimeMs - refreshBeforeMs),
    };
  }
}
