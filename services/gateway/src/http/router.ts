import { randomUUID } from "node:crypto";
import {
  request,
  type IncomingMessage,
  type RequestListener,
  type ServerResponse,
} from "node:http";
import type { Logger } from "@svc/logging";
import { matchRoute, type Route } from "./route-table.ts";

/** What the router needs: the route table, where each service is, and the logger. */
export interface RouterDeps {
  routes: ReadonlyArray<Route>;
  /** service name → base URL of that service. */
  upstreams: Readonly<Record<string, string>>;
  logger: Logger;
  upstreamTimeoutMs?: number;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  requestId: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "x-request-id": requestId,
    ...headers,
  });
  res.end(
    JSON.stringify({
      success: false,
      error: { code, message },
      meta: { request_id: requestId, api_version: "v1" },
    }),
  );
}

/**
 * The token endpoint speaks RFC 6749's error bodies, also while auth is down: an OAuth client reads
 * `{ error, error_description }`, never cached, as auth itself answers an outage.
 */
const TOKEN_PATH = "/oauth/token";

function sendUnavailable(
  res: ServerResponse,
  path: string,
  service: string,
  requestId: string,
): void {
  const message = `the ${service} service is unavailable; retry later`;
  if (path !== TOKEN_PATH)
    return sendError(res, 503, "SERVICE_UNAVAILABLE", message, requestId, { "retry-after": "5" });
  if (res.headersSent) return void res.destroy();
  res.writeHead(503, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    pragma: "no-cache",
    "retry-after": "5",
    "x-request-id": requestId,
  });
  res.end(JSON.stringify({ error: "temporarily_unavailable", error_description: message }));
}

function forwardHeaders(
  req: IncomingMessage,
  requestId: string,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  headers["x-request-id"] = requestId;
  headers["x-forwarded-for"] = req.socket.remoteAddress ?? "";
  headers["x-forwarded-proto"] = "http";
  if (req.headers.host) headers["x-forwarded-host"] = req.headers.host;
  return headers;
}

/**
 * The local stand-in for the Ingress: routes by the shared route table and streams requests and
 * responses through unchanged. A service that is down is 503 in the error envelope (the token
 * endpoint's RFC 6749 error), as the Ingress answers when a Service has no ready endpoints. A
 * service's answer that comes before the whole request (its 408 or 413) is passed through.
 */
export function createRouter(options: RouterDeps): RequestListener {
  return (req, res) => {
    const requestId = randomUUID();
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const route = matchRoute(options.routes, path);
    const base = route && options.upstreams[route.service];
    if (!route || !base) return sendError(res, 404, "NOT_FOUND", "no such endpoint", requestId);
    const target = new URL(req.url ?? "/", base);
    let answered = false;
    const upstream = request(
      target,
      {
        method: req.method,
        headers: forwardHeaders(req, requestId),
        timeout: options.upstreamTimeoutMs ?? 30_000,
      },
      (answer) => {
        answered = true;
        const headers: Record<string, string | string[] | undefined> = Object.fromEntries(
          Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)),
        );
        // The service answered before the whole body arrived (a 408, a 413): what is left of the
        // body would be read as the next request, so this connection ends with the answer.
        if (!req.complete) {
          headers.connection = "close";
          req.unpipe(upstream);
        }
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
        answer.on("close", () => {
          if (!answer.complete) res.destroy();
        });
      },
    );
    upstream.on("timeout", () => upstream.destroy(new Error("upstream timeout")));
    upstream.on("error", (err) => {
      // After an answer, an error is the service closing a connection whose request body it
      // stopped reading; the answer itself is already on its way (or cut, above).
      if (answered || clientGone) return;
      options.logger.warn(
        { error: err.message, service: route.service, request_id: requestId },
        "upstream unavailable",
      );
      sendUnavailable(res, path, route.service, requestId);
    });
    // The client is gone (it closed, or this listener cut it as too slow): so is its request.
    let clientGone = false;
    res.on("close", () => {
      if (res.writableFinished) return;
      clientGone = true;
      upstream.destroy();
    });
    req.pipe(upstream);
  };
}
