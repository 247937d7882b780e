/**
 * HTTP/1.1 over a plain TCP socket, byte for byte: fetch and node:http refuse to send CR/LF in
 * header values, raw non-ASCII paths, broken request lines or lying framing, which is exactly
 * what a hostile-input test has to send. Each request uses its own connection (Connection: close).
 */
import { connect } from "node:net";

export interface RawRequest {
  method: string;
  /**
   * The request target exactly as written on the request line (path and query, already encoded).
   */
  target: string;
  /** Header lines in order; written as latin1 bytes, so any byte can be placed. */
  headers: ReadonlyArray<readonly [string, string]>;
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

export type RawOutcome =
  | { kind: "response"; response: RawResponse; ms: number }
  /** No (complete) response before the deadline. */
  | { kind: "timeout"; ms: number; partial: string }
  /** The server closed or reset the connection without a complete response. */
  | { kind: "closed"; ms: number; partial: string; error?: string };

/**
 * The request's bytes: request line, the given headers, Host and Connection: close unless given,
 * Content-Length for a body.
 */
export function encodeRequest(request: RawRequest, options: { host?: string } = {}): Buffer {
  const names = new Set(request.headers.map(([n]) => n.toLowerCase()));
  const lines = [`${request.method} ${request.target} HTTP/1.1`];
  if (!names.has("host") && options.host !== undefined) lines.push(`Host: ${options.host}`);
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (!names.has("connection")) lines.push("Connection: close");
  if (request.body !== undefined && !names.has("content-length") && !names.has("transfer-encoding"))
    lines.push(`Content-Length: ${request.body.length}`);
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
  return request.body === undefined ? head : Buffer.concat([head, request.body]);
}

interface Parsed {
  response: RawResponse;
  /** false: the connection ended before the framing said the body was complete. */
  complete: boolean;
}

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine = "", ...lines] = head.split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? Number.NaN);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { status, headers };
}

/** Chunked body → bytes, or undefined while incomplete. */
function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf("\r\n", at, "latin1");
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(
      data.subarray(at, lineEnd).toString("latin1").split(";")[0] ?? "",
      16,
    );
    if (!Number.isFinite(size)) return undefined;
    // The last chunk; trailers, if any, are not needed.
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (data.length < start + size + 2) return undefined;
    parts.push(data.subarray(start, start + size));
    at = start + size + 2;
  }
}

/** Parses what arrived so far; interim 1xx responses are skipped. */
function parse(data: Buffer, method: string, ended: boolean): Parsed | undefined {
  let rest = data;
  for (;;) {
    const end = rest.indexOf("\r\n\r\n", 0, "latin1");
    if (end < 0) return undefined;
    const { status, headers } = parseHead(rest.subarray(0, end).toString("latin1"));
    const bodyBytes = rest.subarray(end + 4);
    if (status >= 100 && status < 200) {
      rest = bodyBytes;
      continue;
    }
    const response = (body: Buffer): Parsed => ({
      response: { status, headers, body },
      complete: true,
    });
    if (method === "HEAD" || status === 204 || status === 304) return response(Buffer.alloc(0));
    if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
      const body = dechunk(bodyBytes);
      return body
        ? response(body)
        : ended
          ? { response: { status, headers, body: bodyBytes }, complete: false }
          : undefined;
    }
    const length = headers["content-length"];
    if (length !== undefined) {
      const n = Number(length);
      if (bodyBytes.length >= n) return response(bodyBytes.subarray(0, n));
      return ended
        ? { response: { status, headers, body: bodyBytes }, complete: false }
        : undefined;
    }
    return ended ? response(bodyBytes) : undefined;
  }
}

/**
 * Sends the bytes and waits for one complete response (or the deadline, or the connection's end).
 */
export function sendRaw(
  port: number,
  bytes: Buffer,
  options: { method: string; timeoutMs: number; host?: string },
): Promise<RawOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    const socket = connect(port, options.host ?? "127.0.0.1");
    let data = Buffer.alloc(0);
    let settled = false;
    const settle = (outcome: RawOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const partial = () => data.subarray(0, 2_000).toString("latin1");
    const timer = setTimeout(
      () => settle({ kind: "timeout", ms: elapsed(), partial: partial() }),
      options.timeoutMs,
    );
    const finish = (error?: string) => {
      const parsed = parse(data, options.method, true);
      if (parsed?.complete) settle({ kind: "response", response: parsed.response, ms: elapsed() });
      else
        settle({ kind: "closed", ms: elapsed(), partial: partial(), ...(error ? { error } : {}) });
    };
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const parsed = parse(data, options.method, false);
      if (parsed?.complete) settle({ kind: "response", response: parsed.response, ms: elapsed() });
    });
    // A server may answer (413, 400) and close before it read the whole request: the write then
    // fails, but the answer that already arrived is what counts.
    socket.on("error", (err: NodeJS.ErrnoException) => finish(err.code ?? err.message));
    socket.on("end", () => finish());
    socket.on("close", () => finish());
    socket.write(bytes);
  });
}
