import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { once } from "node:events";
import { createServer as createTcpServer, type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { closedLoopLoad, openLoop, SEQ } from "../src/index.ts";

// Real servers on loopback with a known behaviour; the generator is the compiled C program.
const servers: Array<{ close: () => void }> = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<string> {
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => handler(req, res, body));
  }).listen(0, "127.0.0.1");
  await once(server, "listening");
  servers.push({
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("openLoop", () => {
  it("measures a server's known 20 ms service time, at the asked rate", async () => {
    let received = 0;
    const origin = await serve((_req, res) => {
      received++;
      setTimeout(() => res.end("ok"), 20);
    });
    const result = await openLoop({
      url: `${origin}/slow`,
      ratePerS: 100,
      durationS: 3,
      connections: 8,
    });
    expect(result).toMatchObject({ intended: 300, completed: 300, errors: 0, unfinished: 0 });
    expect(result.statuses).toEqual({ "200": 300 });
    expect(received).toBe(300);
    // Never below the service time; above it only by scheduling noise (generous: loaded CI).
    expect(result.p50).toBeGreaterThanOrEqual(19.5);
    expect(result.p50).toBeLessThan(100);
    expect(result.achievedRate).toBeGreaterThan(95);
    expect(result.achievedRate).toBeLessThan(101);
  });

  it("charges a 1 s stall to every request intended during it, where a closed loop sees a handful", async () => {
    const stallingServer = async () => {
      let first: number | undefined;
      return serve((_req, res) => {
        const now = performance.now();
        first ??= now;
        const [from, to] = [first + 1000, first + 2000];
        if (now >= from && now < to) setTimeout(() => res.end("late"), to - now);
        else res.end("ok");
      });
    };
    const open = await openLoop({
      url: `${await stallingServer()}/`,
      ratePerS: 100,
      durationS: 3,
      connections: 8,
    });
    expect(open.completed).toBe(300);
    // About 100 of 300 requests were due during the stall: each waited for its end, from up to
    // 1 s before it.
    expect(open.p90).toBeGreaterThan(500);
    expect(open.p99).toBeGreaterThan(800);
    // Measured from the actual send, only the 8 requests already in flight saw the stall.
    expect(open.uncorrected.p90).toBeLessThan(open.p90 / 2);
    expect(open.late).toBeGreaterThan(50);

    // A closed loop (each connection sends when answered) sends nothing during the stall: one
    // slow request per connection, among thousands.
    const closed = await closedLoopLoad(await stallingServer(), () => ({ path: "/" }), {
      connections: 8,
      durationMs: 3000,
    });
    const slow = closed.latencies.filter((ms) => ms > 500).length;
    expect(slow).toBeGreaterThan(0);
    expect(slow).toBeLessThanOrEqual(8);
    const sorted = [...closed.latencies].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length * 0.99)]).toBeLessThan(open.p99 / 2);
  });

  it("frames chunked, Content-Length and closing responses, and numbers each request's body and headers", async () => {
    const seqs: string[] = [];
    const origin = await serve((req, res, body) => {
      const parsed = JSON.parse(body) as { n: string };
      seqs.push(`${req.headers["idempotency-key"]}/${parsed.n}/${req.method}/${req.url}`);
      if (req.url === "/chunked") {
        res.write("a".repeat(70_000));
        setImmediate(() => res.end("b"));
      } else if (req.url === "/closing") {
        res.writeHead(201, { connection: "close", "content-length": 2 });
        res.end("ok");
      } else {
        res.writeHead(404, { "content-length": 3 });
        res.end("no!");
      }
    });
    const result = await openLoop({
      url: origin,
      paths: ["/chunked", "/closing", "/other"],
      ratePerS: 150,
      durationS: 2,
      connections: 4,
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": `k-${SEQ}` },
      body: `{"n":"${SEQ}"}`,
    });
    expect(result).toMatchObject({ intended: 300, completed: 300, errors: 0 });
    expect(result.statuses).toEqual({ "200": 100, "201": 100, "404": 100 });
    const paths = ["/chunked", "/closing", "/other"];
    expect(seqs.sort()).toEqual(
      Array.from({ length: 300 }, (_, i) => `k-${i}/${i}/POST/${paths[i % 3]}`).sort(),
    );
  });

  it("counts responses it cannot frame as errors and ends", async () => {
    const tcp = createTcpServer((socket) => {
      socket.on("data", () => socket.end("NOT HTTP\r\n\r\n"));
      socket.on("error", () => {});
    }).listen(0, "127.0.0.1");
    await once(tcp, "listening");
    servers.push(tcp);
    const result = await openLoop({
      url: `http://127.0.0.1:${(tcp.address() as AddressInfo).port}/`,
      ratePerS: 50,
      durationS: 1,
      connections: 2,
    });
    expect(result).toMatchObject({ intended: 50, completed: 0, errors: 50, unfinished: 0 });
  });
});
