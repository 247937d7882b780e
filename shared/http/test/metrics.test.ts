import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetrics, type Metrics } from "@svc/telemetry";
import { fetchJson, silentLogger, startApp, type StartedApp } from "@svc/testing";
import { NotFoundError } from "@svc/errors";
import { createHttpApp, listen, sendData, type RunningServer } from "../src/index.ts";

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
  const routes = express.Router();
  routes.get("/v1/things/:id", (req, res) => {
    if (req.params.id === "missing") throw new NotFoundError();
    sendData(res, { id: req.params.id });
  });
  app = await startApp(
    createHttpApp({
      platform: { service: "demo", version: "0.1.0", environment: "sandbox" },
      logger: silentLogger(),
      routes,
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

describe("request metrics", () => {
  it("counts request durations by route pattern and status on the scrape endpoint", async () => {
    for (const id of ["a", "b", "c"]) await fetchJson(`${app.baseUrl}/v1/things/${id}`);
    await fetchJson(`${app.baseUrl}/v1/things/missing`);
    const text = await (await fetch(`http://127.0.0.1:${scrape.port}/metrics`)).text();
    const count = (status: number) =>
      text
        .split("\n")
        .find(
          (l) =>
            l.startsWith("http_server_request_duration_count") &&
            l.includes('http_route="/v1/things/:id"') &&
            l.includes(`http_response_status_code="${status}"`),
        );
    expect(count(200)).toMatch(/ 3$/);
    expect(count(404)).toMatch(/ 1$/);
    expect(text).not.toContain('http_route="/v1/things/a"');
  });
});
