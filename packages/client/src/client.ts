/**
 * The API client: typed calls by operationId with tokens, retries, idempotency keys and request
 * ids handled, and async iterators over paged lists and the events feed.
 */
import { ApiError, apiErrorFrom, TokenError } from "./errors.ts";
import { OPERATIONS, type Operations } from "./generated/api.ts";
import { retryable, retryDelayMs, sleep, type RetryOptions } from "./retry.ts";
import { TokenSource } from "./token.ts";

export type OperationId = keyof Operations;
type Op<O extends OperationId> = Operations[O];
type Absent<T> = [T] extends [never] ? true : false;
type Field<T, K extends string> = T extends Record<K, infer V> ? V : never;

/** What one call takes: path and query parameters, body, headers, and per-call options. */
export type CallParams<O extends OperationId> = (Absent<Op<O>["pathParams"]> extends true
  ? { path?: never }
  : { path: Op<O>["pathParams"] }) &
  (Absent<Op<O>["query"]> extends true ? { query?: never } : { query?: Op<O>["query"] }) &
  (Absent<Op<O>["body"]> extends true
    ? { body?: never }
    : Op<O>["bodyRequired"] extends true
      ? { body: Op<O>["body"] }
      : { body?: Op<O>["body"] }) &
  (Absent<Op<O>["headers"]> extends true ? unknown : { headers?: Op<O>["headers"] }) &
  (Op<O>["idempotencyKey"] extends true
    ? { /** Reused across this call's retries; a new UUID when absent. */ idempotencyKey?: string }
    : unknown) & {
    /** Sent as `X-Request-Id` (a UUID), so your logs and the service's share it. */
    requestId?: string;
    signal?: AbortSignal;
  };

type Args<O extends OperationId> =
  object extends CallParams<O> ? [CallParams<O>?] : [CallParams<O>];

/** A successful answer: the envelope's data and meta, the request id and the status. */
export type ApiResult<O extends OperationId> = {
  status: number;
  data: Field<Op<O>["success"], "data">;
  meta: Field<Op<O>["success"], "meta">;
  /** `X-Request-Id` (equal to `meta.request_id`): quote it when reporting a problem. */
  requestId: string;
  /** True when the service replayed an earlier answer for the same Idempotency-Key. */
  replayed: boolean;
  headers: Headers;
};

/** Operations listed with page/per_page/total_pages. */
export type PagedOperationId = {
  [K in OperationId]: Op<K>["query"] extends { page?: number } ? K : never;
}[OperationId];

export type ClientOptions = RetryOptions & {
  /** The installation's base URL, e.g. `https://api.example.com`. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to ask for; default: every scope of the client. */
  scope?: string;
  /** Renew the token this long before it expires (default 60 s). */
  refreshBeforeMs?: number;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
};

type Spec = { method: string; path: string; idempotencyKey: boolean };
type Attempt = { url: URL; spec: Spec; params: Record<string, unknown>; idempotencyKey?: string };

export class IntegrationClient {
  readonly #options: ClientOptions;
  readonly #fetch: typeof fetch;
  readonly #tokens: TokenSource;

  constructor(options: ClientOptions) {
    this.#options = options;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#tokens = new TokenSource({ ...options, fetch: this.#fetch });
  }

  /** Calls one operation; throws an ApiError subclass (or TokenError) when it fails. */
  async call<O extends OperationId>(operation: O, ...[params]: Args<O>): Promise<ApiResult<O>> {
    const spec: Spec = OPERATIONS[operation];
    const given = (params ?? {}) as Record<string, unknown>;
    const attempt: Attempt = {
      url: this.#url(spec.path, given),
      spec,
      params: given,
      ...(spec.idempotencyKey && {
        idempotencyKey: (given.idempotencyKey as string | undefined) ?? crypto.randomUUID(),
      }),
    };
    return this.#withRetries(attempt) as Promise<ApiResult<O>>;
  }

  /** Every page of a paged list, from `query.page` (default 1) to the last. */
  async *pages<O extends PagedOperationId>(
    operation: O,
    ...[params]: Args<O>
  ): AsyncGenerator<ApiResult<O>> {
    const given = (params ?? {}) as { query?: { page?: number } };
    for (let page = given.query?.page ?? 1; ; page++) {
      const query = { ...given.query, page };
      const result = (await this.call(operation, ...([{ ...given, query }] as Args<O>))) as {
        meta: { pagination: { total_pages: number } };
      };
      yield result as ApiResult<O>;
      if (page >= result.meta.pagination.total_pages) return;
    }
  }

  /**
   * The events feed page by page, following `next_cursor` until `has_more` is false. Keep the
   * last page's `meta.pagination.next_cursor` and pass it as `query.cursor` to read on later.
   */
  async *feed(...[params]: Args<"listEvents">): AsyncGenerator<ApiResult<"listEvents">> {
    let call = (params ?? {}) as CallParams<"listEvents">;
    for (;;) {
      const result = await this.call("listEvents", call);
      yield result;
      const { next_cursor, has_more } = result.meta.pagination;
      if (!has_more) return;
      const per_page = call.query?.per_page;
      call = { ...call, query: { cursor: next_cursor, ...(per_page && { per_page }) } };
    }
  }

  #url(template: string, params: Record<string, unknown>): URL {
    const pathParams = (params.path ?? {}) as Record<string, string>;
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      if (pathParams[name] === undefined) throw new TypeError(`path parameter ${name} missing`);
      return encodeURIComponent(String(pathParams[name]));
    });
    const url = new URL(path, this.#options.baseUrl);
    // An array (`style: form, explode: false`) is its items comma-separated: what String() gives.
    for (const [key, value] of Object.entries((params.query ?? {}) as Record<string, unknown>))
      if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
    return url;
  }

  async #withRetries(attempt: Attempt): Promise<ApiResult<OperationId>> {
    const { method, idempotencyKey } = attempt.spec;
    const repeatable =
      method === "GET" || method === "PUT" || method === "DELETE" || idempotencyKey;
    for (let retry = 0; ; retry++) {
      try {
        return await this.#authorised(attempt);
      } catch (error) {
        const delay = repeatable ? this.#retryDelay(error, retry) : null;
        if (delay === null) throw error;
        await sleep(delay, attempt.params.signal as AbortSignal | undefined);
      }
    }
  }

  #retryDelay(error: unknown, retry: number): number | null {
    if (retry >= (this.#options.retries ?? 3)) return null;
    if (error instanceof ApiError || error instanceof TokenError) {
      const code = error instanceof ApiError ? error.code : undefined;
      if (!retryable(error.status, code)) return null;
      return retryDelayMs(retry, error.retryAfter, this.#options);
    }
    // fetch rejects with a TypeError when the network failed; an abort is not retried.
    return error instanceof TypeError ? retryDelayMs(retry, null, this.#options) : null;
  }

  /** One attempt; a 401 (expired or revoked token) gets one new token and one more try. */
  async #authorised(attempt: Attempt): Promise<ApiResult<OperationId>> {
    const token = await this.#tokens.get();
    try {
      return await this.#send(attempt, token);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      this.#tokens.invalidate(token);
      return this.#send(attempt, await this.#tokens.get());
    }
  }

  async #send(attempt: Attempt, token: string): Promise<ApiResult<OperationId>> {
    const { params, spec } = attempt;
    const headers: Record<string, string> = {
      ...(params.headers as Record<string, string> | undefined),
      accept: "application/json",
      authorization: `Bearer ${token}`,
    };
    if (attempt.idempotencyKey) headers["idempotency-key"] = attempt.idempotencyKey;
    if (typeof params.requestId === "string") headers["x-request-id"] = params.requestId;
    if (params.body !== undefined) headers["content-type"] = "application/json";
    const response = await this.#fetch(attempt.url, {
      method: spec.method,
      headers,
      ...(params.body !== undefined && { body: JSON.stringify(params.body) }),
      ...(params.signal !== undefined && { signal: params.signal as AbortSignal }),
    });
    const body = (await response.json().catch(() => null)) as {
      data?: unknown;
      meta?: { request_id?: string };
    } | null;
    const requestId = response.headers.get("x-request-id") ?? body?.meta?.request_id ?? null;
    if (!response.ok) throw apiErrorFrom(response, body, requestId);
    return {
      status: response.status,
      data: body?.data as never,
      meta: body?.meta as never,
      requestId: requestId ?? "",
      replayed: response.headers.get("idempotent-replayed") === "true",
      headers: response.headers,
    };
  }
}
