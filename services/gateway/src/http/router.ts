import {
  request,
  type IncomingMessage,
  type RequestListener,
  type ServerResponse,
} from "node:http";
import { requestIdFor, TOKEN_PATH, type ErrorCode } from "@svc/http";
import type { Logger } from "@svc/logging";
import { matchRoute, type Route } from "./route-table.ts";

/** What the router needs: the route table, where each service is, and the logger. */
export interface RouterDeps {
  routes: ReadonlyArray<Route>;
  /** service name → base URLs of that service's replicas (one, or several taking turns). */
  upstreams: Readonly<Record<string, ReadonlyArray<string>>>;
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
  code: ErrorCode,
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

/** A replica that refused a connection gets no requests for this long while another is left. */
const REFUSED_PAUSE_MS = 2_000;

/**
 * Round robin over a service's replicas, passing over one that refused a connection in the last
 * REFUSED_PAUSE_MS (it is down or restarting) as long as another has not.
 */
function replicaPicker(): {
  pick(service: string, urls: ReadonlyArray<string>): string | undefined;
  refused(url: string): void;
} {
  const turns = new Map<string, number>();
  const refusedAt = new Map<string, number>();
  return {
    pick(service, urls) {
      const now = Date.now();
      const start = turns.get(service) ?? 0;
      turns.set(service, (start + 1) % Math.max(1, urls.length));
      const up = (url: string) => now - (refusedAt.get(url) ?? -Infinity) >= REFUSED_PAUSE_MS;
      for (let i = 0; i < urls.length; i++) {
        const url = urls[(start + i) % urls.length]!;
        if (up(url)) return url;
      }
      return urls[start % urls.length];
    },
    refused: (url) => void refusedAt.set(url, Date.now()),
  };
}

/**
 * The local stand-in for the Ingress: routes by the shared route table and streams requests and
 * responses through unchanged, taking turns over a service's replicas. A service that is down is
 * 503 in the error envelope (the token endpoint's RFC 6749 error), as the Ingress answers when a
 * Service has no ready endpoints. A service's answer that comes before the whole request (its 408
 * or 413) is passed through.
 */
export function createRouter(options: RouterDeps): RequestListener {
  const replicas = replicaPicker();
  return (req, res) => {
    const requestId = requestIdFor(req.headers["x-request-id"]);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const route = matchRoute(options.routes, path);
    const base = route && replicas.pick(route.service, options.upstreams[route.service] ?? []);
    if (!route || !base) return sendError(res, 404, "NOT_FOUND", "no such endpoint", requestId);
    // Also on the 408 this listener writes itself when the client is too slow with its body.
    res.setHeader("x-request-id", requestId);
    const target = new URL(req.url ?? "/", base);
    let answered = false;
    const upstream = request(
      target,
      { method: req.method, headers: forwardHeaders(req, requestId) },
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
    // The wait for the service's answer is bounded once the whole request is sent; before that, a
    // client slow to send its body is this listener's (and the service's) 408 REQUEST_TIMEOUT, not
    // an unavailable service.
    req.on("end", () => upstream.setTimeout(options.upstreamTimeoutMs ?? 30_000));
    upstream.on("timeout", () => upstream.destroy(new Error("upstream timeout")));
    upstream.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ECONNREFUSED") replicas.refused(base);
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
