import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetrics, type Metrics } from "@svc/telemetry";
import { fetchJson, silentLogger, startApp, type StartedApp } from "@svc/testing";
import { UnauthenticatedError } from "@svc/errors";
import { createHttpApp, listen, type RunningServer } from "../src/index.ts";

let metrics: Metrics;
let app: StartedApp;
let scrape: RunningServer;
beforeAll(async () => {
  metrics = createMetrics({
    serviceName: "demo",
    serviceVersion: "0.1.0",
    environment: "sandbox",
    otlp: false,
  });
  const router = express.Router();
  const guard: express.RequestHandler = (_req, _res, next) =>
    next(new UnauthenticatedError("no", 'Bearer realm="x"'));
  router.get("/v1/guarded/:id", guard, (_req, res) => {
    res.json({});
  });
  app = await startApp(
    createHttpApp({
      platform: { service: "demo", version: "0.1.0", environment: "sandbox" },
      logger: silentLogger(),
      routes: router,
      meter: metrics.meter,
    }),
  );
  scrape = await listen(metrics.handler, 0, "127.0.0.1");
});
afterAll(async () => {
  await app.close();
  await scrape.close(100);
  await metrics.shutdown();
});

describe("route label", () => {
  it("labels a request rejected inside its route (401 from a guard) with the route pattern", async () => {
    await fetchJson(`${app.baseUrl}/v1/guarded/abc`);
    const text = await (await fetch(`http://127.0.0.1:${scrape.port}/metrics`)).text();
    expect(text).toContain('http_route="/v1/guarded/:id",http_response_status_code="401"');
  });
});
