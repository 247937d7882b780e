import type { RequestOptions } from "node:http";
import type { Attributes } from "@opentelemetry/api";

/** What replaces every part of an outgoing URL but its scheme, host and port. */
export const REDACTED = "REDACTED";

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };

/**
 * The URL attributes of an outgoing request's CLIENT span, reduced to scheme, host and port: a
 * webhook subscriber's URL may carry a token in its path or query, and the span is kept where
 * anyone reading traces sees it. Overrides what the HTTP and undici instrumentations record.
 */
export function outgoingUrlAttributes(url: {
  protocol: string;
  hostname: string;
  port: string;
  search?: string;
}): Attributes {
  const port = url.port || DEFAULT_PORTS[url.protocol] || "";
  return {
    "url.full": `${url.protocol}//${url.hostname}${port ? `:${port}` : ""}/${REDACTED}`,
    "url.path": `/${REDACTED}`,
    ...(url.search ? { "url.query": REDACTED } : {}),
  };
}

/** For the undici instrumentation's startSpanHook (fetch, undici.request). */
export function undiciUrlAttributes(request: { origin: string; path: string }): Attributes {
  try {
    return outgoingUrlAttributes(new URL(request.path, request.origin));
  } catch {
    return { "url.full": REDACTED, "url.path": REDACTED, "url.query": REDACTED };
  }
}

/** For the HTTP instrumentation's startOutgoingSpanHook (node:http and node:https). */
export function httpUrlAttributes(request: RequestOptions): Attributes {
  const protocol = request.protocol ?? "http:";
  const host = request.hostname ?? request.host ?? "localhost";
  const query = (request.path ?? "").indexOf("?");
  return outgoingUrlAttributes({
    protocol,
    hostname: host.includes(":") && !host.startsWith("[") ? `[${host}]` : host,
    port: request.port === undefined || request.port === null ? "" : String(request.port),
    search: query >= 0 ? (request.path ?? "").slice(query) : "",
  });
}
