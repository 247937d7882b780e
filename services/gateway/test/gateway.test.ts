import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchJson, silentLogger, startApp, unusedPort, type StartedApp } from "@svc/testing";
import { listen, type RunningServer } from "@svc/http";
import { createApp } from "../src/app.ts";
import { loadRoutes, matchRoute } from "../src/http/route-table.ts";
import { createRouter } from "../src/http/router.ts";

describe("route table", () => {
  const routes = loadRoutes();
  it.each([
    ["/v1/practices", "practices"],
    ["/v1/practices/abc%2Fdef", "practices"],
    ["/v1/meta/vacancies", "vacancies"],
    ["/v1/applications", "identity"],
    ["/v1/webhooks/x/test", "webhooks"],
    ["/portal", "webhooks"],
    ["/portal/open", "webhooks"],
    ["/portal/api/v1/webhooks", "webhooks"],
    ["/oauth/token", "auth"],
    ["/health", "auth"],
    // What the document and the platform guide say answers health through the public address.
    ["/v1/health", "auth"],
  ])("routes %s to %s", (path, service) => {
    expect(matchRoute(routes, path)?.service).toBe(service);
  });

  it("matches at segment boundaries only", () => {
    expect(matchRoute(routes, "/v1/practicesx")).toBeUndefined();
    expect(matchRoute(routes, "/v2/practices")).toBeUndefined();
    expect(matchRoute(routes, "/portalx")).toBeUndefined();
  });
});

describe("gateway", () => {
  let upstream: StartedApp;
  let gateway: StartedApp;
  let early: Server;
  beforeAll(async () => {
    // A service that answers before the request body has arrived (as its 408 or 413 does) and
    // closes the connection.
    early = createServer((_req, res) => {
      res.writeHead(408, { "content-type": "application/json", connection: "close" });
      res.end('{"success":false,"error":{"code":"REQUEST_TIMEOUT","message":"slow"}}');
    }).listen(0, "127.0.0.1");
    await once(early, "listening");
    const app = express();
    app.use(express.text({ type: "*/*" }));
    app.all("/{*rest}", (req, res) => {
      res.set("x-upstream", "vacancies").json({
        method: req.method,
        url: req.url,
        body: req.body,
        requestId: req.get("x-request-id"),
        auth: req.get("authorization"),
      });
    });
    upstream = await startApp(app);
    const deadPort = await unusedPort();
    gateway = await startApp(
      createApp({
        config: {
          GATEWAY_UPSTREAMS: {
            vacancies: [upstream.baseUrl],
            practices: [`http://127.0.0.1:${deadPort}`],
            auth: [`http://127.0.0.1:${deadPort}`],
            identity: [`http://127.0.0.1:${(early.address() as AddressInfo).port}`],
          },
        },
        logger: silentLogger(),
      }),
    );
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
    early.close();
  });

  it("forwards method, path, query, headers and body, and streams the answer back", async () => {
    const res = await fetchJson<Record<string, string>>(
      `${gateway.baseUrl}/v1/vacancies/abc?page=2`,
      {
        method: "POST",
        headers: { authorization: "Bearer t", "content-type": "text/plain" },
        body: "hello",
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("x-upstream")).toBe("vacancies");
    expect(res.body).toMatchObject({
      method: "POST",
      url: "/v1/vacancies/abc?page=2",
      body: "hello",
      auth: "Bearer t",
    });
    expect(res.body.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("keeps a caller's UUID-shaped X-Request-Id end to end and replaces any other", async () => {
    const sent = "6F1D2C3B-4A5E-4F60-8B7C-9D0E1F2A3B4C";
    // POST: an echo upstream, not a document operation the contract check would hold it to.
    const kept = await fetchJson<Record<string, string>>(`${gateway.baseUrl}/v1/vacancies/echo`, {
      method: "POST",
      headers: { "x-request-id": sent },
    });
    expect(kept.body.requestId).toBe(sent.toLowerCase());
    const replaced = await fetchJson<Record<string, string>>(
      `${gateway.baseUrl}/v1/vacancies/echo`,
      { method: "POST", headers: { "x-request-id": "not-a-uuid" } },
    );
    expect(replaced.body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(replaced.body.requestId).not.toBe("not-a-uuid");
  });

  it("passes an answer the service gives before the body arrived through, then closes", async () => {
    const socket = connect(gateway.port, "127.0.0.1");
    let text = "";
    socket.on("data", (c: Buffer) => (text += c.toString("latin1")));
    const closed = once(socket, "close");
    socket.write(
      "POST /v1/applications HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        'Content-Length: 1000\r\n\r\n{"a":',
    );
    await closed;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(text).toContain('"code":"REQUEST_TIMEOUT"');
  });

  it("answers an unrouted path with 404 in the error envelope", async () => {
    const res = await fetchJson<{ error: { code: string } }>(`${gateway.baseUrl}/v2/anything`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
  });

  it("answers 503 in the error envelope when the service is down", async () => {
    const res = await fetchJson<{ error: { code: string } }>(`${gateway.baseUrl}/v1/practices`);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("SERVICE_UNAVAILABLE");
    expect(res.headers.get("retry-after")).toBe("5");
  });

  it("answers 503 in RFC 6749's form, not cached, when auth is down and a token is asked for", async () => {
    const res = await fetchJson<Record<string, unknown>>(`${gateway.baseUrl}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      error: "temporarily_unavailable",
      error_description: "the auth service is unavailable; retry later",
    });
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("pragma")).toBe("no-cache");
    expect(res.headers.get("retry-after")).toBe("5");
  });
});

describe("gateway: a request body that never completes", () => {
  const LIMITS = { headersTimeoutMs: 1_000, requestTimeoutMs: 1_500, maxConnections: 100 };
  let service: RunningServer;
  let gateway: RunningServer;
  beforeAll(async () => {
    // A service that reads bodies and is slower to give up on them than the gateway.
    const app = express();
    app.use(express.json());
    app.post("/v1/applications/never", () => undefined);
    app.post("/{*rest}", (_req, res) => void res.json({ ok: true }));
    service = await listen(app, 0, "127.0.0.1", { ...LIMITS, requestTimeoutMs: 60_000 });
    // An answer wait shorter than the client's allowance: it must not cut a body still arriving.
    const router = createRouter({
      routes: loadRoutes(),
      upstreams: { identity: [`http://127.0.0.1:${service.port}`] },
      logger: silentLogger(),
      upstreamTimeoutMs: 300,
    });
    gateway = await listen(router, 0, "127.0.0.1", LIMITS);
  });
  afterAll(async () => {
    await gateway.close(100);
    await service.close(100);
  });

  it("answers 408 REQUEST_TIMEOUT in the envelope, as the services do, not 503", async () => {
    const socket = connect(gateway.port, "127.0.0.1");
    let text = "";
    socket.on("data", (c: Buffer) => (text += c.toString("latin1")));
    const closed = once(socket, "close");
    const started = Date.now();
    socket.write(
      "POST /v1/applications HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        "X-Request-Id: 6f1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c\r\n" +
        'Content-Length: 1000\r\n\r\n{"a":',
    );
    await closed;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('"code":"REQUEST_TIMEOUT"');
    expect(text).toContain("6f1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c");
    // Within the request timeout and Node's 0.5 s check, with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(LIMITS.requestTimeoutMs + 5_000);
  });

  it("forwards a complete body, and still bounds the wait for the answer after it", async () => {
    // Not document operations (the contract check would hold the echo to one).
    const done = await fetchJson<{ ok: boolean }>(
      `http://127.0.0.1:${gateway.port}/v1/applications/echo`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      },
    );
    expect(done.body).toEqual({ ok: true });
    const started = Date.now();
    const never = await fetchJson<{ error: { code: string } }>(
      `http://127.0.0.1:${gateway.port}/v1/applications/never`,
      { method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
    );
    expect(never.status).toBe(503);
    expect(never.body.error.code).toBe("SERVICE_UNAVAILABLE");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("gateway over replicas", () => {
  const replicas: StartedApp[] = [];
  let gateway: StartedApp;
  beforeAll(async () => {
    for (const name of ["first", "second"]) {
      const app = express();
      app.all("/{*rest}", (_req, res) => void res.json({ replica: name }));
      replicas.push(await startApp(app));
    }
    const dead = `http://127.0.0.1:${await unusedPort()}`;
    const [first, second] = replicas.map((r) => r.baseUrl) as [string, string];
    gateway = await startApp(
      createApp({
        config: {
          GATEWAY_UPSTREAMS: {
            vacancies: [first, second],
            practices: [second, first],
            identity: [dead, second],
          },
        },
        logger: silentLogger(),
      }),
    );
  });
  afterAll(async () => {
    await gateway.close();
    for (const r of replicas) await r.close();
  });

  // A path no operation documents: the answers are the stand-in replicas', not the contract's.
  const replicaOf = async (service: string) => {
    const res = await fetch(`${gateway.baseUrl}/v1/${service}/which-replica/x`);
    const body = (await res.json()) as { replica?: string; error?: { code: string } };
    return body.replica ?? `${res.status} ${body.error?.code}`;
  };

  it("takes turns over a service's replicas, each service on its own", async () => {
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      seen.push(await replicaOf("vacancies"));
      // Another service's requests do not shift the vacancies' turns.
      await replicaOf("practices");
    }
    expect(seen).toEqual(["first", "second", "first"]);
  });

  it("passes over a replica that refused a connection while another answers", async () => {
    const answers: string[] = [];
    for (let i = 0; i < 5; i++) answers.push(await replicaOf("applications"));
    // The one request that found it down is answered 503; the live replica takes the rest.
    expect(answers).toEqual(["503 SERVICE_UNAVAILABLE", "second", "second", "second", "second"]);
  });
});
