import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchJson, silentLogger, startApp, unusedPort, type StartedApp } from "@svc/testing";
import { createApp } from "../src/app.ts";
import { loadRoutes, matchRoute } from "../src/http/route-table.ts";

describe("route table", () => {
  const routes = loadRoutes();
  it.each([
    ["/v1/practices", "practices"],
    ["/v1/practices/abc%2Fdef", "practices"],
    ["/v1/meta/vacancies", "vacancies"],
    ["/v1/applications", "identity"],
    ["/v1/webhooks/x/test", "webhooks"],
    ["/oauth/token", "auth"],
    ["/health", "auth"],
  ])("routes %s to %s", (path, service) => {
    expect(matchRoute(routes, path)?.service).toBe(service);
  });

  it("matches at segment boundaries only", () => {
    expect(matchRoute(routes, "/v1/practicesx")).toBeUndefined();
    expect(matchRoute(routes, "/v2/practices")).toBeUndefined();
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
