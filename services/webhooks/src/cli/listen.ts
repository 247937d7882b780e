/**
 * `webhooks listen`: follows the events feed (GET /v1/events) with client credentials and POSTs
 * each event to a local URL exactly as a delivery would arrive (same body, same headers, signed
 * with a local secret printed at start), so a developer's receiver runs against real events
 * without a public URL. The feed's cursor is kept in memory and moves on only after a page's
 * events were forwarded: a network error retries the same page, so nothing is lost or repeated.
 */
import { randomUUID } from "node:crypto";
import { apiClientArgs, UsageError, type Invocation } from "@svc/cli";
import { backoffMs, sleep } from "@svc/time";
import { SERVICE_VERSION } from "../config.ts";
import {
  deliveryHeaders,
  DELIVERY_CONTENT_TYPE,
  deliveryUserAgent,
  generateSecret,
} from "../domain/signing.ts";

export type ListenOptions = {
  forwardTo: URL;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  secret: string;
  /** The signing secret was made here, so it is printed once; a given one never is. */
  secretGenerated: boolean;
  events: string | undefined;
  since: string | undefined;
  pollMs: number;
};

/** Options from the command line and the environment; a UsageError names a missing or bad one. */
export function listenOptions(
  call: Pick<Invocation, "string">,
  env: {
    BASE_URL?: string | undefined;
    CLIENT_ID?: string | undefined;
    CLIENT_SECRET?: string | undefined;
    WEBHOOK_SECRET?: string | undefined;
  },
): ListenOptions {
  const forwardTo = URL.parse(call.string("forward-to") ?? "");
  if (!forwardTo || !["http:", "https:"].includes(forwardTo.protocol))
    throw new UsageError("--forward-to must be an http(s) URL");
  const { baseUrl, clientId, clientSecret } = apiClientArgs(call, env);
  const pollMs = Number(call.string("poll-ms") ?? 500);
  if (!Number.isInteger(pollMs) || pollMs < 50 || pollMs > 60_000)
    throw new UsageError("--poll-ms must be whole milliseconds, 50 to 60000");
  const since = call.string("since");
  if (since !== undefined && Number.isNaN(Date.parse(since)))
    throw new UsageError("--since must be an ISO 8601 date-time with offset");
  const given = call.string("secret") ?? env.WEBHOOK_SECRET;
  return {
    forwardTo,
    baseUrl,
    clientId,
    clientSecret,
    secret: given ?? generateSecret(),
    secretGenerated: given === undefined,
    events: call.string("events"),
    since,
    pollMs,
  };
}

type FeedItem = { event_uuid: string; event_type: string; payload: unknown };
type FeedAnswer = {
  data: FeedItem[];
  meta: { pagination: { next_cursor: string; has_more: boolean } };
  error?: { code: string; message: string };
};

/** An answer that retrying cannot fix (bad credentials, a scope missing, a bad filter). */
class FatalError extends Error {}

const FORWARD_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 15_000;
const MAX_BACKOFF_MS = 5_000;

/**
 * Runs until `signal` aborts (Ctrl+C); resolves then. Rejects with a FatalError on an answer no
 * retry can fix. `print` gets one line per event and per connection problem.
 */
export async function listen(
  options: ListenOptions,
  print: (line: string) => void,
  signal: AbortSignal,
): Promise<void> {
  const feedUrl = `${options.baseUrl}/v1/events`;
  let token: { value: string; renewAt: number } | undefined;

  const getToken = async (): Promise<{ value: string; date: number }> => {
    const res = await fetch(`${options.baseUrl}/oauth/token`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: "grant_type=client_credentials",
      signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
    });
    const body = (await res.json().catch(() => ({}))) as {
      access_token?: string;
      expires_in?: number;
      error?: string;
    };
    if (res.status === 400 || res.status === 401)
      throw new FatalError(`the token request was refused: ${body.error ?? res.status}`);
    if (!res.ok || !body.access_token) throw new Error(`token request answered ${res.status}`);
    const lifetimeMs = (body.expires_in ?? 3_600) * 1_000;
    token = { value: body.access_token, renewAt: Date.now() + lifetimeMs * 0.8 };
    // The server's clock decides where "now" is in the feed, not this machine's.
    return { value: body.access_token, date: Date.parse(res.headers.get("date") ?? "") };
  };

  async function retrying<T>(step: () => Promise<T>): Promise<T> {
    for (let failures = 1; ; failures++) {
      try {
        return await step();
      } catch (err) {
        if (err instanceof FatalError || signal.aborted) throw err;
        const waitMs = backoffMs(failures, 250, MAX_BACKOFF_MS);
        print(`! ${options.baseUrl} unreachable (${describe(err)}); retrying in ${waitMs} ms`);
        await sleep(waitMs, signal);
      }
    }
  }

  // The next page's query: the start's filters, then the cursor of the page before.
  let query = "";
  const readPage = async (): Promise<FeedAnswer> => {
    if (!token || Date.now() >= token.renewAt) await getToken();
    const res = await fetch(`${feedUrl}?${query}`, {
      headers: { authorization: `Bearer ${token!.value}`, accept: "application/json" },
      signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
    });
    const body = (await res.json().catch(() => undefined)) as FeedAnswer | undefined;
    if (res.status === 401) {
      token = undefined; // expired or revoked: a new token on the next try
      throw new Error("token refused");
    }
    if (res.status >= 400 && res.status < 500)
      throw new FatalError(
        `the events feed answered ${res.status} ${body?.error?.code ?? ""}: ${body?.error?.message ?? ""}`,
      );
    if (!res.ok || !body?.meta?.pagination)
      throw new Error(`the events feed answered ${res.status}`);
    return body;
  };

  try {
    const first = await retrying(getToken);
    const startQuery = new URLSearchParams({ per_page: "100" });
    if (options.events) startQuery.set("type", options.events);
    startQuery.set(
      "created_since",
      options.since ?? new Date(Number.isNaN(first.date) ? Date.now() : first.date).toISOString(),
    );
    query = startQuery.toString();

    print(`Ready. Forwarding events to ${options.forwardTo.href}`);
    print(
      options.secretGenerated
        ? `Signing secret (verify deliveries with it): ${options.secret}`
        : "Signing with the secret you gave (--secret or WEBHOOK_SECRET).",
    );
    print(`Starting at events recorded since ${startQuery.get("created_since")}. Ctrl+C stops.`);
    while (!signal.aborted) {
      const page = await retrying(readPage);
      for (const event of page.data) {
        if (signal.aborted) return;
        print(await forward(options, event, signal));
      }
      query = new URLSearchParams({
        cursor: page.meta.pagination.next_cursor,
        per_page: "100",
      }).toString();
      if (!page.meta.pagination.has_more) await sleep(options.pollMs, signal);
    }
  } catch (err) {
    if (signal.aborted && !(err instanceof FatalError)) return;
    throw err;
  }
}

/** POSTs one event as a delivery would arrive; the line to print. */
async function forward(
  options: ListenOptions,
  event: FeedItem,
  signal: AbortSignal,
): Promise<string> {
  // The feed's payload is the stored body parsed; compact JSON gives the delivered bytes back.
  const body = JSON.stringify(event.payload);
  const headers = {
    ...deliveryHeaders({
      eventUuid: event.event_uuid,
      eventType: event.event_type,
      deliveryUuid: randomUUID(),
      timestampSeconds: Math.floor(Date.now() / 1_000),
      body,
      secrets: [options.secret],
    }),
    "content-type": DELIVERY_CONTENT_TYPE,
    "user-agent": deliveryUserAgent(SERVICE_VERSION),
  };
  const started = performance.now();
  const line = (outcome: string) =>
    `${new Date().toISOString()}  ${event.event_type}  ${event.event_uuid}  -> ${outcome} (${Math.round(performance.now() - started)} ms)`;
  try {
    const res = await fetch(options.forwardTo, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.any([signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
    });
    await res.body?.cancel();
    return line(String(res.status));
  } catch (err) {
    return line(`failed: ${describe(err)}`);
  }
}

/** A short reason: the network error's code when there is one. */
function describe(err: unknown): string {
  const e = err as {
    name?: string;
    message?: string;
    cause?: { code?: string; message?: string; errors?: Array<{ code?: string }> };
  };
  if (e.name === "TimeoutError") return "timeout";
  return (
    e.cause?.code ?? e.cause?.errors?.[0]?.code ?? e.cause?.message ?? e.message ?? String(err)
  );
}

export { FatalError };
