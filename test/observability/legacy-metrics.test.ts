// legacy.source.unavailable: counted where every legacy read happens (@svc/db createLegacyDb).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLegacyDb } from "@svc/db";
import { SourceUnavailableError } from "@svc/errors";
import { createMetrics, sampleValue, type Metrics } from "@svc/telemetry";
import { createTempMysqlDatabase, TcpProxy, unusedPort, type TempDatabase } from "@svc/testing";
import { expectCatalogued } from "./support/metric-labels.ts";

let database: TempDatabase;
let metrics: Metrics;
beforeAll(async () => {
  database = await createTempMysqlDatabase("obs_legacy");
  metrics = createMetrics({
    serviceName: "vacancies",
    serviceVersion: "0.0.0",
    environment: "sandbox",
    otlp: false,
  });
});
afterAll(async () => {
  await metrics?.shutdown();
  await database?.drop();
});

describe("legacy.source.unavailable", () => {
  it("counts queries that fail because the source cannot be reached, by error type, and nothing for queries that work", async () => {
    const proxy = await TcpProxy.start({
      host: "127.0.0.1",
      port: Number(new URL(database.url).port || 3306),
    });
    const viaProxy = new URL(database.url);
    viaProxy.port = String(proxy.port);
    const refused = new URL(database.url);
    refused.port = String(await unusedPort());
    const reachable = createLegacyDb({
      url: viaProxy.toString(),
      connectTimeoutMs: 1_000,
      queryTimeoutMs: 1_000,
      meter: metrics.meter,
    });
    const down = createLegacyDb({
      url: refused.toString(),
      connectTimeoutMs: 1_000,
      queryTimeoutMs: 1_000,
      meter: metrics.meter,
    });
    try {
      await reachable.query("SELECT 1");
      await reachable.query("SELECT 2");
      expect(
        sampleValue(await metrics.scrape(), "legacy_source_unavailable_total"),
      ).toBeUndefined();

      for (let i = 0; i < 3; i += 1)
        await expect(down.query("SELECT 1")).rejects.toBeInstanceOf(SourceUnavailableError);
      // A SQL mistake is no outage: not counted.
      await expect(reachable.query("SELECT * FROM no_such_table")).rejects.not.toBeInstanceOf(
        SourceUnavailableError,
      );
      proxy.pause();
      await expect(reachable.query("SELECT 3")).rejects.toBeInstanceOf(SourceUnavailableError);

      const text = await metrics.scrape();
      expect(
        sampleValue(text, "legacy_source_unavailable_total", { error_type: "ECONNREFUSED" }),
      ).toBe(3);
      const total = text
        .split("\n")
        .filter((l) => l.startsWith("legacy_source_unavailable_total{"))
        .reduce((sum, l) => sum + Number(l.split(" ").at(-1)), 0);
      expect(total).toBe(4);
      expectCatalogued(text, ["legacy_source_unavailable_total"]);
    } finally {
      await proxy.close();
      await Promise.all([
        reachable.close().catch(() => undefined),
        down.close().catch(() => undefined),
      ]);
    }
  });
});
