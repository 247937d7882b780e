import { randomUUID } from "node:crypto";
import {
  STATUS_CODES,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from "node:http";
import type { Duplex } from "node:stream";
import type { ErrorCode } from "@svc/errors";
import { API_VERSION } from "./envelope.ts";

/**
 * Requests Node's HTTP layer answers by itself never reach the app, so without these hooks they get
 * bare 400/417/431 responses, or (CONNECT) a closed connection. Each answer here is the contract's
 * error envelope with a request id, like every other error.
 */
function errorBody(code: ErrorCode, message: string, requestId: string): string {
  return JSON.stringify({
    success: false,
    error: { code, message },
    meta: { request_id: requestId, api_version: API_VERSION },
  });
}

/**
 * For a connection that has no request object (parse errors, CONNECT): the response written to
 * the socket itself.
 */
function writeToSocket(
  socket: Duplex,
  status: number,
  code: ErrorCode,
  message: string,
  requestId: string = randomUUID(),
): void {
  const body = errorBody(code, message, requestId);
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}`,
      "Content-Type: application/json; charset=utf-8",
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      "X-Content-Type-Options: nosniff",
      "Connection: close",
      "",
      body,
    ].join("\r\n"),
  );
}

function protocolErrorOf(code: string | undefined): [number, ErrorCode, string] {
  if (code === "HPE_HEADER_OVERFLOW")
    return [431, "REQUEST_HEADERS_TOO_LARGE", "the request headers are too large"];
  if (code === "ERR_HTTP_REQUEST_TIMEOUT")
    return [408, "REQUEST_TIMEOUT", "the request was not received in time"];
  return [400, "MALFORMED_REQUEST", "the request is not valid HTTP/1.1"];
}

/**
 * The OAuth 2.0 token endpoint: its every error is an RFC 6749 body (`{ error,
 * error_description }`, never cached), whichever layer answers it (the auth app, the gateway,
 * this listener).
 */
export const TOKEN_PATH = "/oauth/token";

/** HTTP/1.1 requires Host (RFC 9112 3.2); Node's own check would answer it without a body. */
function requireHost(handler: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.host === undefined && req.httpVersion !== "1.0") {
      const requestId = randomUUID();
      const message = "the Host header is required";
      const token = (req.url ?? "").split("?")[0] === TOKEN_PATH;
      const body = token
        ? JSON.stringify({ error: "invalid_request", error_description: message })
        : errorBody("MALFORMED_REQUEST", message, requestId);
      res.writeHead(400, {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Length": Buffer.byteLength(body),
        "X-Request-Id": requestId,
        "X-Content-Type-Options": "nosniff",
        ...(token ? { "Cache-Control": "no-store", Pragma: "no-cache" } : {}),
        Connection: "close",
      });
      res.end(body);
      return;
    }
    handler(req, res);
  };
}

/** Server options that hand the missing-Host case to `withProtocolErrors`' request listener. */
export const PROTOCOL_SERVER_OPTIONS = { requireHostHeader: false } as const;

/**
 * Installs the hooks on a server created with PROTOCOL_SERVER_OPTIONS; returns the request
 * listener to serve.
 */
export function withProtocolErrors(server: Server, handler: RequestListener): RequestListener {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    const attached = (socket as { _httpMessage?: ServerResponse })._httpMessage;
    if (err.code === "ECONNRESET" || !socket.writable || attached?.headersSent) {
      socket.destroy();
      return;
    }
    // A request cut mid-body already has its id (the app set it): the 408 carries the same one.
    const id = attached?.getHeader("x-request-id");
    const [status, code, message] = protocolErrorOf(err.code);
    writeToSocket(socket, status, code, message, typeof id === "string" ? id : undefined);
  });
  // This is an origin server, not a proxy.
  server.on("connect", (_req: IncomingMessage, socket: Duplex) =>
    writeToSocket(
      socket,
      400,
      "MALFORMED_REQUEST",
      "CONNECT is not supported: this is not a proxy",
    ),
  );
  const listener = requireHost(handler);
  // RFC 9110 10.1.1: an expectation other than 100-continue may be ignored; the request is served
  // as usual.
  server.on("checkExpectation", listener);
  return listener;
}
