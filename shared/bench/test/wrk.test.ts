import { createServer, type Server } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWrk } from "../src/index.ts";

// A real node:http server on loopback; the load comes from Debian's wrk.
const seen: Array<{
  method: string;
  url: string;
  key: string | undefined;
  who: string | undefined;
  body: string;
}> = [];
let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        key: req.headers["idempotency-key"] as string | undefined,
        who: req.headers["x-who"] as string | undefined,
        body,
      });
      // /slow/<ms>: answered after that many milliseconds, a scenario too slow for a short window.
      const slow = /^\/slow\/(\d+)$/.exec(req.url ?? "");
      setTimeout(
        () => {
          res.writeHead(req.url === "/missing" ? 404 : 200, { "content-length": 2 });
          res.end("ok");
        },
        slow ? Number(slow[1]) : 0,
      );
    });
  }).listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  server.closeAllConnections();
});

describe("runWrk", () => {
  it("reports throughput, latency percentiles and every response by status", async () => {
    seen.length = 0;
    const result = await runWrk({
      url: `${origin}/here`,
      connections: 4,
      durationS: 1,
      statusCounts: true,
    });
    expect(result.errors).toBe(0);
    expect(result.badStatuses).toBe(0);
    expect(result.statuses["200"]).toBe(result.requests);
    // wrk stops with requests in flight: the server saw a few more than were answered.
    expect(seen.length).toBeGreaterThanOrEqual(result.requests);
    expect(seen.length).toBeLessThanOrEqual(result.requests + 4);
    expect(result.rps).toBeGreaterThan(result.requests * 0.8);
    expect(result.p50).toBeGreaterThan(0);
    expect(result.p50).toBeLessThanOrEqual(result.p99);
    expect(result.p99).toBeLessThanOrEqual(result.p999);
    expect(result.p999).toBeLessThanOrEqual(result.max);
  });

  it("sends the paths in turn, the method, headers and body, and a unique key per request", async () => {
    seen.length = 0;
    const result = await runWrk({
      url: origin,
      paths: ["/a", "/missing", '/q?x="y"'],
      connections: 4,
      threads: 2,
      durationS: 1,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":"\\n"}',
      uniqueHeader: "Idempotency-Key",
      statusCounts: true,
    });
    const answered = seen.slice(0, result.requests);
    expect(new Set(seen.map((s) => s.key)).size).toBe(seen.length);
    expect(seen.every((s) => s.method === "POST" && s.body === '{"a":"\\n"}')).toBe(true);
    expect(new Set(seen.map((s) => s.url))).toEqual(new Set(["/a", "/missing", '/q?x="y"']));
    expect(result.statuses["404"]).toBeGreaterThan(answered.length / 4);
    expect(result.statuses["200"]! + result.statuses["404"]!).toBe(result.requests);
    expect(result.badStatuses).toBe(result.statuses["404"]);
  });

  it("counts statuses of 400 and above without handing bodies to Lua", async () => {
    const result = await runWrk({ url: `${origin}/missing`, connections: 2, durationS: 1 });
    expect(result.statuses).toEqual({});
    expect(result.requests).toBeGreaterThan(0);
    expect(result.badStatuses).toBe(result.requests);
  });

  it("numbers each request's body where it says {{seq}}, uniquely over the threads", async () => {
    seen.length = 0;
    const result = await runWrk({
      url: `${origin}/people`,
      connections: 4,
      threads: 2,
      durationS: 1,
      method: "POST",
      body: '{"email":"p.{{seq}}@example.be","n":{{seq}}}',
      statusCounts: true,
    });
    expect(result.statuses["200"]).toBe(result.requests);
    const numbers = seen.map((s) => {
      const m = /^\{"email":"p\.(\d+)@example\.be","n":(\d+)\}$/.exec(s.body);
      expect(m, s.body).not.toBeNull();
      expect(m?.[1]).toBe(m?.[2]);
      return Number(m?.[1]);
    });
    expect(new Set(numbers).size).toBe(seen.length);
    expect(Math.min(...numbers)).toBeLessThan(2);
  });

  it("gives each request the next value of a rotating header, over the threads", async () => {
    seen.length = 0;
    const values = ["a", "b", "c", "d", "e"];
    const result = await runWrk({
      url: `${origin}/rotating`,
      connections: 4,
      threads: 2,
      durationS: 1,
      rotatingHeaders: { "x-who": values },
    });
    expect(result.requests).toBeGreaterThan(values.length * 4);
    const counts = values.map((v) => seen.filter((s) => s.who === v).length);
    // Every request carries one of them, each about as often as the others.
    expect(counts.reduce((a, b) => a + b, 0)).toBe(seen.length);
    expect(Math.min(...counts)).toBeGreaterThan(seen.length / values.length / 2);
  });

  /** 2 connections for a 1 s window against a server answering after `ms`. */
  const slowRun = (ms: number, minResponses: number, maxDurationS: number) =>
    runWrk({
      url: `${origin}/slow/${ms}`,
      connections: 2,
      durationS: 1,
      minResponses,
      maxDurationS,
    });

  it("gives a slow scenario a window long enough for the responses it needs", async () => {
    // 200 ms per response: about 10 in the 1 s window, fewer than the 30 asked.
    const result = await slowRun(200, 30, 10);
    expect(result.tooSlow).toBeUndefined();
    expect(result.durationS).toBeGreaterThan(1);
    expect(result.durationS).toBeLessThanOrEqual(10);
    expect(result.requests).toBeGreaterThanOrEqual(30);
    expect(result.rps).toBeGreaterThan(7);
    expect(result.rps).toBeLessThanOrEqual(10.5);
    expect(result.p50).toBeGreaterThanOrEqual(200);
  }, 30_000);

  it("says a scenario is too slow to measure rather than reporting a rate of nothing", async () => {
    // 3 s per response: none in the 1 s window, none in the longest (2 s) either.
    const result = await slowRun(3_000, 10, 2);
    expect(result.requests).toBe(0);
    expect(result.durationS).toBe(2);
    expect(result.rps).toBe(0);
    expect(result.tooSlow).toBe("too slow to measure at this size: 0 responses in 2 s");
  }, 30_000);
});
