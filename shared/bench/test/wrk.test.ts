import { createServer, type Server } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWrk } from "../src/index.ts";

// A real node:http server on loopback; the load comes from Debian's wrk.
const seen: Array<{ method: string; url: string; key: string | undefined; body: string }> = [];
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
        body,
      });
      res.writeHead(req.url === "/missing" ? 404 : 200, { "content-length": 2 });
      res.end("ok");
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
});
