import { connect } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, startApp, type StartedApp } from "@svc/testing";
import { createHttpApp, sendData } from "../src/index.ts";

/**
 * What Node's HTTP layer answers by itself (parse errors, oversized headers, CONNECT, a missing
 * Host, unknown expectations) is in the error envelope too.
 */
let app: StartedApp;
beforeAll(async () => {
  const routes = express.Router();
  routes.get("/v1/things", (_req, res) => sendData(res, { ok: true }));
  app = await startApp(
    createHttpApp({
      platform: { service: "demo", version: "0.1.0", environment: "sandbox" },
      logger: silentLogger(),
      routes,
    }),
  );
});
afterAll(() => app.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes bytes as they are (fetch refuses most of these); reads until the server closes. */
function raw(request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(app.port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.setTimeout(5_000, () => socket.destroy(new Error("no answer within 5 s")));
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const [head = "", body = ""] = text.split("\r\n\r\n", 2);
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(
        lines.map((l) => [
          l.slice(0, l.indexOf(":")).toLowerCase(),
          l.slice(l.indexOf(":") + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body });
    });
    socket.end(request, "latin1");
  });
}

function expectEnvelope(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
  const body = JSON.parse(answer.body) as {
    success: boolean;
    error: { code: string; message: string };
    meta: { request_id: string; api_version: string };
  };
  expect(body).toEqual({
    success: false,
    error: { code, message: expect.any(String) },
    meta: { request_id: answer.headers["x-request-id"], api_version: "v1" },
  });
  expect(body.meta.request_id).toMatch(
    /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  );
}

describe("requests the HTTP parser refuses", () => {
  it.each([
    ["a CR inside a header value", "GET /v1/things HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n"],
    ["an unknown method", "FOO /v1/things HTTP/1.1\r\nHost: x\r\n\r\n"],
    ["a space inside the path", "GET /v1/th ings HTTP/1.1\r\nHost: x\r\n\r\n"],
    ["a NUL byte inside the path", "GET /v1/things\x00 HTTP/1.1\r\nHost: x\r\n\r\n"],
    [
      "both Content-Length and Transfer-Encoding",
      "POST /v1/things HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ],
    ["an HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"],
  ])("answers %s with 400 MALFORMED_REQUEST in the envelope", async (_name, request) => {
    expectEnvelope(await raw(request), 400, "MALFORMED_REQUEST");
  });

  it("answers oversized headers with 431 REQUEST_HEADERS_TOO_LARGE in the envelope", async () => {
    expectEnvelope(
      await raw(`GET /v1/things HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`),
      431,
      "REQUEST_HEADERS_TOO_LARGE",
    );
  });

  it("answers CONNECT with 400 in the envelope instead of dropping the connection", async () => {
    expectEnvelope(
      await raw("CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n"),
      400,
      "MALFORMED_REQUEST",
    );
  });

  it("answers an HTTP/1.1 request without Host with 400 in the envelope", async () => {
    expectEnvelope(
      await raw("GET /v1/things HTTP/1.1\r\nConnection: close\r\n\r\n"),
      400,
      "MALFORMED_REQUEST",
    );
  });

  it("still serves an HTTP/1.0 request without Host", async () => {
    const answer = await raw("GET /v1/things HTTP/1.0\r\n\r\n");
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ success: true, data: { ok: true } });
  });

  it.each(["OPTIONS", "POST", "DELETE"])(
    "answers %s on the platform endpoints with 405 in the envelope (express would answer OPTIONS in text/plain)",
    async (method) => {
      for (const path of ["/health", "/v1/health", "/version", "/v1/version"]) {
        const answer = await raw(
          `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
        );
        expectEnvelope(answer, 405, "METHOD_NOT_ALLOWED");
        expect(answer.headers.allow).toBe("GET, HEAD");
      }
    },
  );

  it("serves a request with an unknown Expect value as usual instead of a bare 417", async () => {
    const answer = await raw(
      "GET /v1/things HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nConnection: close\r\n\r\n",
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ success: true, data: { ok: true } });
  });
});
