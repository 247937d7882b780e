import { randomUUID } from "node:crypto";
import { connect, type Socket } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger, trickleRequest } from "@svc/testing";
import { createHttpApp, listen, sendData, type RunningServer } from "../src/index.ts";

/**
 * The listener's limits on a real loopback server: the headers and request timeouts hold to their
 * configured values (Node's own check runs every 30 s by default), the answer is the error
 * envelope, and connections beyond the cap are refused.
 */
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close(0);
  server = undefined;
});

async function start(limits: {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
}): Promise<RunningServer> {
  const routes = express.Router();
  routes.get("/v1/things", (_req, res) => sendData(res, { ok: true }));
  routes.post("/v1/things", (req, res) => sendData(res, { got: req.body as unknown }));
  server = await listen(
    createHttpApp({
      platform: { service: "demo", version: "0.1.0", environment: "sandbox" },
      logger: silentLogger(),
      routes,
    }),
    0,
    "127.0.0.1",
    limits,
  );
  return server;
}

/** Writes `first`, then `unit` every 100 ms, until the server ends the connection. */
const trickle = (port: number, first: string, unit: string) =>
  trickleRequest(port, first, unit, { everyMs: 100, giveUpMs: 10_000 });

function envelopeOf(text: string): { status: number; requestIdHeader: string; body: unknown } {
  const [head = "", body = ""] = text.split("\r\n\r\n", 2);
  return {
    status: Number(head.split(" ")[1]),
    requestIdHeader: /\r\nX-Request-Id: (\S+)/i.exec(head)?.[1] ?? "",
    body: JSON.parse(body) as unknown,
  };
}

const timeoutBody = (requestId: string) => ({
  success: false,
  error: { code: "REQUEST_TIMEOUT", message: "the request was not received in time" },
  meta: { request_id: requestId, api_version: "v1" },
});

describe("listener limits", () => {
  it("answers headers that trickle in with 408 at the headers timeout, not later", async () => {
    const { port } = await start({
      headersTimeoutMs: 700,
      requestTimeoutMs: 5_000,
      maxConnections: 10,
    });
    const ended = await trickle(port, "GET /v1/things HTTP/1.1\r\nHost: x\r\n", "X-Slow: 1\r\n");
    const answer = envelopeOf(ended.text);
    expect(answer.status).toBe(408);
    expect(answer.body).toEqual(timeoutBody(answer.requestIdHeader));
    expect(ended.ms).toBeGreaterThanOrEqual(700);
    expect(ended.ms).toBeLessThan(700 + 1_000);
  });

  it("answers a body that trickles in with 408 at the request timeout, under the request's id", async () => {
    const { port } = await start({
      headersTimeoutMs: 700,
      requestTimeoutMs: 1_200,
      maxConnections: 10,
    });
    const id = randomUUID();
    const ended = await trickle(
      port,
      [
        "POST /v1/things HTTP/1.1",
        "Host: x",
        "Content-Type: application/json",
        "Content-Length: 1000",
        `X-Request-Id: ${id}`,
        "",
        '{"a":"',
      ].join("\r\n"),
      "b",
    );
    const answer = envelopeOf(ended.text);
    expect(answer.status).toBe(408);
    expect(answer.requestIdHeader).toBe(id);
    expect(answer.body).toEqual(timeoutBody(id));
    expect(ended.ms).toBeGreaterThanOrEqual(1_200);
    expect(ended.ms).toBeLessThan(1_200 + 1_000);
  });

  it("caps the headers timeout at the request timeout", async () => {
    const { port } = await start({
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 800,
      maxConnections: 10,
    });
    const ended = await trickle(port, "GET /v1/things HTTP/1.1\r\nHost: x\r\n", "X-Slow: 1\r\n");
    expect(envelopeOf(ended.text).status).toBe(408);
    expect(ended.ms).toBeLessThan(800 + 1_000);
  });

  it("refuses connections beyond the cap and accepts again once one closes", async () => {
    const running = await start({
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 5_000,
      maxConnections: 3,
    });
    const held: Socket[] = [];
    for (let i = 0; i < 3; i++) held.push(connect(running.port, "127.0.0.1"));
    const count = () =>
      new Promise<number>((resolve, reject) =>
        running.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
      );
    while ((await count()) < 3) await new Promise((r) => setTimeout(r, 10));

    const refused = await trickle(running.port, "GET /v1/things HTTP/1.1\r\nHost: x\r\n\r\n", "");
    expect(refused.text).toBe("");
    expect(refused.ms).toBeLessThan(1_000);

    held.pop()?.destroy();
    while ((await count()) > 2) await new Promise((r) => setTimeout(r, 10));
    const res = await fetch(`http://127.0.0.1:${running.port}/v1/things`, {
      headers: { connection: "close" },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    for (const socket of held) socket.destroy();
  });
});
