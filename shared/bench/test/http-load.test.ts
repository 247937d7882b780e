import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { once } from "node:events";
import { createServer as createTcpServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedLoopLoad } from "../src/index.ts";

// A real node:http server on loopback, answering by path.
const BIG = Buffer.alloc(300_000, "x");
const seen: Array<{ path: string; authorization: string | undefined; host: string | undefined }> =
  [];
let server: Server;
let origin: string;

function answer(req: IncomingMessage, res: ServerResponse): void {
  seen.push({
    path: req.url ?? "",
    authorization: req.headers.authorization,
    host: req.headers.host,
  });
  if (req.url === "/big") {
    res.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": BIG.length,
    });
    res.end(BIG);
  } else if (req.url === "/missing") {
    res.writeHead(404, { "content-length": 2 });
    res.end("no");
  } else if (req.url === "/closing") {
    res.writeHead(200, { "content-length": 2, connection: "close" });
    res.end("ok");
  } else if (req.url === "/chunked") {
    // Several chunks in separate writes, one of them large, then a trailer section.
    res.writeHead(200, { "content-type": "text/plain", trailer: "x-checksum" });
    res.write("a");
    setImmediate(() => {
      res.write(BIG);
      res.addTrailers({ "x-checksum": "1" });
      res.end("b");
    });
  } else {
    res.writeHead(200, { "content-length": 0 });
    res.end();
  }
}

beforeAll(async () => {
  server = createServer(answer).listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

describe("closedLoopLoad", () => {
  it("reads whole bodies that arrive in many chunks and counts every response by status", async () => {
    let i = 0;
    const paths = ["/big", "/missing", "/empty"];
    const result = await closedLoopLoad(
      origin,
      () => ({ path: paths[i++ % paths.length]!, headers: { authorization: "Bearer t" } }),
      { connections: 4, durationMs: 300 },
    );
    const answered = Object.values(result.statuses).reduce((a, b) => a + b, 0);
    expect(answered).toBe(result.latencies.length);
    // Every request but each connection's first (setting the connection up, not counted).
    expect(answered).toBe(i - 4);
    expect(result.statuses[404]).toBeGreaterThan(0);
    expect(result.statuses[200]).toBeGreaterThan(result.statuses[404]!);
    expect(result.latencies.every((ms) => ms > 0)).toBe(true);
    expect(
      seen
        .filter((s) => s.path === "/big")
        .every((s) => s.authorization === "Bearer t" && s.host === new URL(origin).host),
    ).toBe(true);
  });

  it("starts the clock once every connection has answered, so a slow first request per connection is not measured", async () => {
    // Each connection's first request waits 300 ms, as when a busy server takes new connections
    // one event-loop turn at a time; later ones are answered at once.
    const slowFirst = createServer((req, res) => {
      const first = (req.socket as { answered?: boolean }).answered !== true;
      (req.socket as { answered?: boolean }).answered = true;
      setTimeout(() => res.writeHead(200, { "content-length": 0 }).end(), first ? 300 : 0);
    }).listen(0, "127.0.0.1");
    await once(slowFirst, "listening");
    try {
      const result = await closedLoopLoad(
        `http://127.0.0.1:${(slowFirst.address() as AddressInfo).port}`,
        () => ({ path: "/" }),
        { connections: 8, durationMs: 200 },
      );
      expect(result.latencies.length).toBeGreaterThan(8);
      expect(Math.max(...result.latencies)).toBeLessThan(150);
      expect(result.elapsedMs).toBeLessThan(290);
    } finally {
      slowFirst.close();
    }
  });

  it("places every response in time: its request's start beside its latency", async () => {
    // Answered at once for the first ~150 ms of the run, then after 100 ms.
    let slowFrom = Number.POSITIVE_INFINITY;
    const stepped = createServer((_req, res) => {
      setTimeout(
        () => res.writeHead(200, { "content-length": 0 }).end(),
        performance.now() >= slowFrom ? 100 : 0,
      );
    }).listen(0, "127.0.0.1");
    await once(stepped, "listening");
    try {
      const load = closedLoopLoad(
        `http://127.0.0.1:${(stepped.address() as AddressInfo).port}`,
        () => ({ path: "/" }),
        { connections: 2, durationMs: 400 },
      );
      // The clock starts once both connections answered their first request (at once).
      await new Promise((resolve) => setTimeout(resolve, 20));
      slowFrom = performance.now() + 130;
      const result = await load;
      expect(result.starts).toHaveLength(result.latencies.length);
      const offset = slowFrom - result.startedAt;
      const pairs = result.starts.map((start, i) => ({ start, latency: result.latencies[i]! }));
      const early = pairs.filter((p) => p.start + p.latency < offset - 5);
      const late = pairs.filter((p) => p.start > offset + 5);
      expect(early.length).toBeGreaterThan(5);
      expect(late.length).toBeGreaterThan(2);
      expect(early.every((p) => p.latency < 60)).toBe(true);
      expect(late.every((p) => p.latency >= 95)).toBe(true);
      expect(pairs.every((p) => p.start >= 0 && p.start + p.latency <= result.elapsedMs + 1)).toBe(
        true,
      );
    } finally {
      stepped.close();
    }
  });

  it("opens a new connection when the server closes one after its response", async () => {
    const result = await closedLoopLoad(origin, () => ({ path: "/closing" }), {
      connections: 2,
      durationMs: 200,
    });
    expect(result.statuses[200]).toBeGreaterThan(10);
  });

  it("reads chunked bodies to their last chunk and trailers", async () => {
    const result = await closedLoopLoad(origin, () => ({ path: "/chunked" }), {
      connections: 2,
      durationMs: 200,
    });
    expect(result.statuses[200]).toBeGreaterThan(2);
    expect(result.statuses[200]).toBe(result.latencies.length);
  });

  it("reads a response head that arrives split across reads, the first part kept while the next read lands", async () => {
    // The head in two writes a little apart (two reads into the connection's one read buffer),
    // then a body longer than that buffer in several writes.
    const body = Buffer.alloc(200_000, "y");
    const raw = createTcpServer((socket) => {
      // A write after the client closed: not this test's concern.
      socket.on("error", () => undefined);
      socket.on("data", () => {
        socket.write("HTTP/1.1 201 Created\r\ncontent-type: text/pl");
        setTimeout(() => {
          socket.write(`ain\r\ncontent-length: ${body.length}\r\n\r\n`);
          socket.write(body.subarray(0, 70_000));
          setImmediate(() => socket.write(body.subarray(70_000)));
        }, 5);
      });
    });
    raw.listen(0, "127.0.0.1");
    await once(raw, "listening");
    try {
      const result = await closedLoopLoad(
        `http://127.0.0.1:${(raw.address() as AddressInfo).port}`,
        () => ({ path: "/" }),
        { connections: 2, durationMs: 150 },
      );
      expect(result.statuses[201]).toBeGreaterThan(2);
      expect(result.statuses[201]).toBe(result.latencies.length);
    } finally {
      raw.close();
    }
  });

  it("refuses a response it cannot frame instead of guessing", async () => {
    const raw = createTcpServer((socket) =>
      socket.once("data", () =>
        socket.write("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nno framing"),
      ),
    );
    raw.listen(0, "127.0.0.1");
    await once(raw, "listening");
    try {
      await expect(
        closedLoopLoad(
          `http://127.0.0.1:${(raw.address() as AddressInfo).port}`,
          () => ({ path: "/" }),
          { connections: 1, durationMs: 100 },
        ),
      ).rejects.toThrow(/without a usable Content-Length/);
    } finally {
      raw.close();
    }
  });

  it("fails when nothing listens rather than hanging", async () => {
    const closed = createServer().listen(0, "127.0.0.1");
    await once(closed, "listening");
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await expect(
      closedLoopLoad(`http://127.0.0.1:${port}`, () => ({ path: "/" }), {
        connections: 1,
        durationMs: 100,
      }),
    ).rejects.toThrow(/ECONNREFUSED/);
  });
});
