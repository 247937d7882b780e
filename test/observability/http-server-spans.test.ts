// @svc/http's server spans and request log lines, with the real SDK bootstrap exporting to memory.
import { Writable } from "node:stream";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpApp, sendData } from "@svc/http";
import { createLogger } from "@svc/logging";
import { startApp, type StartedApp } from "@svc/testing";
import {
  parentIdOf,
  spanIdOf,
  startInMemoryTracing,
  traceIdOf,
  type Tracing,
} from "./support/tracing.ts";

const CALLER_TRACE = "5bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "10f067aa0ba902b7";
let tracing: Tracing;
let app: StartedApp;
const lines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  tracing = await startInMemoryTracing("http-test");
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  const routes = express.Router();
  routes.get("/v1/things/:id", (req, res) => {
    // What the bearer-token middleware leaves for the request log (@svc/auth).
    res.locals.auth = { clientId: "client-42" };
    sendData(res, { id: req.params.id });
  });
  routes.get("/v1/broken", () => {
    throw new Error("boom");
  });
  app = await startApp(
    createHttpApp({
      platform: { service: "t", version: "0.1.0", environment: "sandbox" },
      logger: createLogger({ service: "t", level: "info", destination }),
      routes,
    }),
  );
});
afterAll(async () => {
  await app?.close();
  await tracing?.stop();
});

const requestLine = (path: string) => lines.find((l) => l.msg === "request" && l.route === path);

describe("server spans", () => {
  it("continue the caller's W3C trace, are named by route, and the request's log line carries their ids", async () => {
    const res = await fetch(`${app.baseUrl}/v1/things/42?x=1`, {
      headers: {
        traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
        authorization: "Bearer secret-token",
      },
    });
    expect(res.status).toBe(200);
    await res.text();
    const span = await tracing.ended(
      "server span",
      (s) => s.kind === SpanKind.SERVER && s.attributes["url.path"] === "/v1/things/42",
    );
    expect(span.name).toBe("GET /v1/things/:id");
    expect(traceIdOf(span)).toBe(CALLER_TRACE);
    expect(parentIdOf(span)).toBe(CALLER_SPAN);
    expect(span.attributes).toMatchObject({
      "http.request.method": "GET",
      "http.route": "/v1/things/:id",
      "http.response.status_code": 200,
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    const line = requestLine("/v1/things/:id");
    expect(line).toMatchObject({
      trace_id: CALLER_TRACE,
      span_id: spanIdOf(span),
      status: 200,
      method: "GET",
    });
    expect(line?.request_id).toEqual(expect.any(String));
    expect(line).toMatchObject({ client_id: "client-42", route: "/v1/things/:id" });
    expect(line?.duration_ms).toEqual(expect.any(Number));
    expect(JSON.stringify(line)).not.toContain("secret-token");
  });

  it("keep a caller's trace id but not its sampling decision (TRACE_INCOMING_CONTEXT=correlate, the default)", async () => {
    // The caller says "not sampled"; our sampler (always on here) decides, and records the span.
    const callerTrace = "0af7651916cd43dd8448eb211c80319c";
    const res = await fetch(`${app.baseUrl}/v1/things/unsampled`, {
      headers: { traceparent: `00-${callerTrace}-${CALLER_SPAN}-00` },
    });
    expect(res.status).toBe(200);
    await res.text();
    const span = await tracing.ended(
      "server span of the unsampled caller",
      (s) => s.kind === SpanKind.SERVER && s.attributes["url.path"] === "/v1/things/unsampled",
    );
    expect(traceIdOf(span)).toBe(callerTrace);
    expect(parentIdOf(span)).toBe(CALLER_SPAN);
    expect(span.spanContext().traceFlags & 1).toBe(1);
  });

  it("start a trace when the caller sends none, and mark a 500 as an error", async () => {
    expect((await fetch(`${app.baseUrl}/v1/broken`)).status).toBe(500);
    const span = await tracing.ended(
      "server span of the failed request",
      (s) => s.kind === SpanKind.SERVER && s.attributes["url.path"] === "/v1/broken",
    );
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.name).toBe("GET /v1/broken");
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({
      "http.response.status_code": 500,
      "error.type": "500",
    });
    expect(requestLine("/v1/broken")).toMatchObject({
      trace_id: traceIdOf(span),
      span_id: spanIdOf(span),
      status: 500,
    });
  });

  it("name an unmatched request by its method only (no path in the name)", async () => {
    expect((await fetch(`${app.baseUrl}/v1/nothing/here`)).status).toBe(404);
    const span = await tracing.ended(
      "server span of the 404",
      (s) => s.kind === SpanKind.SERVER && s.attributes["url.path"] === "/v1/nothing/here",
    );
    expect(span.name).toBe("GET");
    expect(span.attributes["http.route"]).toBeUndefined();
  });
});
