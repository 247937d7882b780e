import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpApp, sendData } from "@svc/http";
import {
  createTempMysqlDatabase,
  fetchJson,
  silentLogger,
  startApp,
  TcpProxy,
  unusedPort,
  type StartedApp,
  type TempDatabase,
} from "@svc/testing";
import { createLegacyDb, type LegacyDb } from "../src/index.ts";

function appOver(db: LegacyDb) {
  const router = express.Router();
  router.get("/v1/count", async (_req, res) => {
    const rows = await db.query<{ n: number }>("SELECT COUNT(*) AS n FROM things");
    sendData(res, { n: Number(rows[0]?.n) });
  });
  router.post("/v1/write", async (_req, res) => {
    await db.query("INSERT INTO things (name) VALUES ('x')");
    sendData(res, {});
  });
  return createHttpApp({
    platform: { service: "t", version: "0.1.0", environment: "sandbox" },
    logger: silentLogger(),
    routes: router,
  });
}

let database: TempDatabase;
beforeAll(async () => {
  database = await createTempMysqlDatabase("legacy_t");
  const { createConnection } = await import("mysql2/promise");
  const c = await createConnection({ uri: database.url });
  await c.query("CREATE TABLE things (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20))");
  await c.query("INSERT INTO things (name) VALUES ('a'), ('b')");
  await c.end();
});
afterAll(() => database.drop());

async function withApp(url: string, run: (app: StartedApp) => Promise<void>) {
  const db = createLegacyDb({ url, connectTimeoutMs: 1_000, queryTimeoutMs: 1_000 });
  const app = await startApp(appOver(db));
  try {
    await run(app);
  } finally {
    await app.close();
    await db.close().catch(() => undefined);
  }
}

async function expect503Quickly(app: StartedApp) {
  const started = Date.now();
  const res = await fetchJson<{ error: { code: string } }>(`${app.baseUrl}/v1/count`);
  expect(res.status).toBe(503);
  expect(res.body.error.code).toBe("LEGACY_SOURCE_UNAVAILABLE");
  expect(Date.now() - started).toBeLessThan(4_000);
}

describe("legacy source", () => {
  it("reads through the pool", async () => {
    await withApp(database.url, async (app) => {
      const res = await fetchJson(`${app.baseUrl}/v1/count`);
      expect(res.body).toMatchObject({ data: { n: 2 } });
    });
  });

  it("refuses writes: every session is read-only", async () => {
    await withApp(database.url, async (app) => {
      const res = await fetchJson(`${app.baseUrl}/v1/write`, { method: "POST" });
      expect(res.status).toBe(500);
      const count = await fetchJson(`${app.baseUrl}/v1/count`);
      expect(count.body).toMatchObject({ data: { n: 2 } });
    });
  });

  it("answers 503 within a few seconds when nothing listens at the address", async () => {
    const port = await unusedPort();
    const url = new URL(database.url);
    url.port = String(port);
    await withApp(url.toString(), expect503Quickly);
  });

  it("answers 503 within a few seconds when the server accepts but never answers (paused before connecting)", async () => {
    const proxy = await TcpProxy.start({
      host: "127.0.0.1",
      port: Number(new URL(database.url).port || 3306),
    });
    proxy.pause();
    const url = new URL(database.url);
    url.port = String(proxy.port);
    try {
      await withApp(url.toString(), expect503Quickly);
    } finally {
      await proxy.close();
    }
  });

  it("answers 503 when an established connection's server pauses, and recovers without a restart", async () => {
    const proxy = await TcpProxy.start({
      host: "127.0.0.1",
      port: Number(new URL(database.url).port || 3306),
    });
    const url = new URL(database.url);
    url.port = String(proxy.port);
    try {
      await withApp(url.toString(), async (app) => {
        expect((await fetchJson(`${app.baseUrl}/v1/count`)).status).toBe(200);
        proxy.pause();
        await expect503Quickly(app);
        proxy.resume();
        const res = await fetchJson(`${app.baseUrl}/v1/count`);
        expect(res.status).toBe(200);
      });
    } finally {
      await proxy.close();
    }
  });
});
