/**
 * A closed-loop HTTP/1.1 load generator for the benchmarks: `connections` kept-alive sockets, each
 * sending its next GET as soon as the previous response's last byte arrived.
 *
 * It shares the machine's cores with the server under test and its database, so it spends as
 * little CPU per response as it can: it parses only the status line and the framing headers,
 * counts body bytes without keeping them (Content-Length or chunked framing), as wrk or
 * autocannon do, and reads each connection into one reused buffer. It fails loudly on a response
 * it cannot frame, never guesses. Why, and what undici's pool cost:
 * docs/decisions/bench-harness.md.
 */
import { connect, type Socket } from "node:net";

export interface LoadRequest {
  path: string;
  headers?: Record<string, string>;
}

export interface LoadResult {
  /** Milliseconds from writing each request to its response's last byte, in completion order. */
  latencies: number[];
  /** When each of those requests was written: milliseconds after `startedAt`, in the same order. */
  starts: number[];
  /**
   * `performance.now()` when the clock started (every connection set up), to place other events in
   * the run.
   */
  startedAt: number;
  /** Responses by status code. */
  statuses: Record<number, number>;
  elapsedMs: number;
}

const HEAD_END = Buffer.from("\r\n\r\n");
const READ_BUFFER_BYTES = 64 * 1024;
const MAX_HEAD_BYTES = 64 * 1024;

interface Response {
  status: number;
  /** The server will close the connection after this response. */
  close: boolean;
}

/**
 * How the body of a response ends: after `length` bytes, or at the last chunk of a chunked body.
 */
type Framing = { kind: "length"; length: number } | { kind: "chunked" };

/** Status, framing and connection handling of a response head (without its final CRLFCRLF). */
function parseHead(head: string): Response & { framing: Framing } {
  const [statusLine = "", ...lines] = head.split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!status)
    throw new Error(`not an HTTP/1.1 response: ${JSON.stringify(statusLine.slice(0, 80))}`);
  let length: number | undefined;
  let chunked = false;
  let close = statusLine.startsWith("HTTP/1.0");
  for (const line of lines) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line
      .slice(colon + 1)
      .trim()
      .toLowerCase();
    if (name === "content-length") length = Number(value);
    else if (name === "transfer-encoding") chunked = value === "chunked";
    else if (name === "connection") close = value === "close";
  }
  if (chunked) return { status: Number(status[1]), close, framing: { kind: "chunked" } };
  if (length === undefined || !Number.isSafeInteger(length) || length < 0)
    throw new Error(
      `response without a usable Content-Length or chunked framing (status ${status[1]})`,
    );
  return { status: Number(status[1]), close, framing: { kind: "length", length } };
}

const MAX_LINE = 4096;

/**
 * Consumes a chunked body (RFC 9112 7.1) piece by piece without keeping it: chunk-size lines,
 * chunk data, the CRLF after each, and the trailer section up to its empty line.
 */
class ChunkedBody {
  #state: "size" | "data" | "data-end" | "trailer" = "size";
  #line = "";
  #left = 0;

  /** Feeds bytes; true when the body ended exactly at the end of `bytes`. */
  feed(bytes: Buffer): boolean {
    let i = 0;
    while (i < bytes.length) {
      if (this.#state === "data") {
        const take = Math.min(this.#left, bytes.length - i);
        i += take;
        this.#left -= take;
        if (this.#left === 0) this.#state = "data-end";
        continue;
      }
      const lf = bytes.indexOf(10, i);
      this.#line += bytes.toString("latin1", i, lf < 0 ? bytes.length : lf);
      if (this.#line.length > MAX_LINE) throw new Error("chunked body line over 4 KiB");
      if (lf < 0) return false;
      i = lf + 1;
      const line = this.#line.replace(/\r$/, "");
      this.#line = "";
      if (this.#state === "size") {
        const size = /^([0-9a-f]+)(?:;.*)?$/i.exec(line.trim());
        if (!size) throw new Error(`bad chunk size line: ${JSON.stringify(line.slice(0, 40))}`);
        this.#left = Number.parseInt(size[1]!, 16);
        this.#state = this.#left === 0 ? "trailer" : "data";
      } else if (this.#state === "data-end") {
        if (line !== "") throw new Error("chunk data longer than its size");
        this.#state = "size";
      } else if (line === "") {
        if (i !== bytes.length)
          throw new Error("bytes after the end of a chunked body (pipelining is not used)");
        return true;
      }
    }
    return false;
  }
}

/**
 * One kept-alive connection; `exchange` sends a request and resolves when its response has been
 * read.
 */
class LoadConnection {
  readonly #host: string;
  readonly #port: number;
  #socket: Socket | undefined;
  #head: Buffer = Buffer.alloc(0);
  /**
   * The body being read: bytes still to come, or a chunked decoder; undefined while reading a head.
   */
  #body: { left: number } | ChunkedBody | undefined;
  #response: Response | undefined;
  #settle: { resolve: (r: Response) => void; reject: (e: Error) => void } | undefined;

  constructor(host: string, port: number) {
    this.#host = host;
    this.#port = port;
  }

  async exchange(request: Buffer): Promise<Response> {
    const socket = this.#socket ?? (await this.#open());
    return new Promise<Response>((resolve, reject) => {
      this.#settle = { resolve, reject };
      this.#head = Buffer.alloc(0);
      this.#body = undefined;
      socket.write(request);
    });
  }

  close(): void {
    this.#socket?.destroy();
    this.#socket = undefined;
  }

  async #open(): Promise<Socket> {
    // Reads land in one buffer per connection, reused (`onread`): no 64 KB buffer allocated per
    // read, as with 'data' events, for bodies that are only counted (see #read for what is kept).
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    const onread = {
      buffer,
      callback: (bytes: number) => {
        this.#read(buffer.subarray(0, bytes));
        return true;
      },
    };
    const socket = connect({ host: this.#host, port: this.#port, noDelay: true, onread });
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    // Only the current socket's end fails the request in flight (close() detaches it first).
    const gone = (err?: Error) => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      this.#fail(err ?? new Error("connection closed before the response ended"));
    };
    socket.on("error", gone);
    socket.on("close", () => gone());
    this.#socket = socket;
    return socket;
  }

  #read(chunk: Buffer): void {
    try {
      let bytes = chunk;
      if (this.#body === undefined) {
        this.#head = this.#head.length === 0 ? chunk : Buffer.concat([this.#head, chunk]);
        const end = this.#head.indexOf(HEAD_END);
        if (end < 0) {
          if (this.#head.length > MAX_HEAD_BYTES) throw new Error("response head over 64 KiB");
          // A head split across reads is kept as a copy: the read buffer is overwritten next time.
          if (this.#head.buffer === chunk.buffer) this.#head = Buffer.from(this.#head);
          return;
        }
        const head = parseHead(this.#head.toString("latin1", 0, end));
        this.#response = { status: head.status, close: head.close };
        this.#body =
          head.framing.kind === "chunked" ? new ChunkedBody() : { left: head.framing.length };
        bytes = this.#head.subarray(end + HEAD_END.length);
      }
      if (this.#body instanceof ChunkedBody) {
        if (this.#body.feed(bytes)) this.#finish();
        return;
      }
      this.#body.left -= bytes.length;
      if (this.#body.left < 0)
        throw new Error("more bytes than the response's Content-Length (pipelining is not used)");
      if (this.#body.left === 0) this.#finish();
    } catch (err) {
      this.close();
      this.#fail(err as Error);
    }
  }

  #finish(): void {
    const response = this.#response!;
    const settle = this.#settle;
    this.#settle = undefined;
    this.#body = undefined;
    this.#head = Buffer.alloc(0);
    if (response.close) this.close();
    settle?.resolve(response);
  }

  #fail(err: Error): void {
    const settle = this.#settle;
    this.#settle = undefined;
    settle?.reject(err);
  }
}

function requestBytes(host: string, request: LoadRequest): Buffer {
  let head = `GET ${request.path} HTTP/1.1\r\nHost: ${host}\r\n`;
  for (const [name, value] of Object.entries(request.headers ?? {}))
    head += `${name}: ${value}\r\n`;
  return Buffer.from(`${head}\r\n`, "latin1");
}

/**
 * `connections` loops for `durationMs`, each sending `next()`'s request when its previous response
 * has been read; a request still running at the deadline is awaited (and counted).
 *
 * The clock starts once every connection has been accepted and has answered one request (not
 * counted): a server accepts one new connection per event-loop turn, so the set-up of a fresh set
 * of connections would land in the latencies (docs/decisions/bench-harness.md). A kept-alive set,
 * as an ingress keeps to its upstreams, is what is measured.
 */
export async function closedLoopLoad(
  origin: string,
  next: () => LoadRequest,
  options: { connections: number; durationMs: number },
): Promise<LoadResult> {
  const url = new URL(origin);
  if (url.protocol !== "http:")
    throw new Error(`the load generator speaks plain HTTP only: ${origin}`);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || 80);
  const latencies: number[] = [];
  const starts: number[] = [];
  const statuses: Record<number, number> = {};
  const connections = Array.from(
    { length: options.connections },
    () => new LoadConnection(host, port),
  );
  try {
    await Promise.all(
      connections.map((connection) => connection.exchange(requestBytes(url.host, next()))),
    );
    const started = performance.now();
    const deadline = started + options.durationMs;
    const loop = async (connection: LoadConnection) => {
      while (performance.now() < deadline) {
        const bytes = requestBytes(url.host, next());
        const t0 = performance.now();
        const response = await connection.exchange(bytes);
        latencies.push(performance.now() - t0);
        starts.push(t0 - started);
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      }
    };
    await Promise.all(connections.map(loop));
    return {
      latencies,
      starts,
      startedAt: started,
      statuses,
      elapsedMs: performance.now() - started,
    };
  } finally {
    for (const connection of connections) connection.close();
  }
}
