import { request } from "node:http";
import express from "express";
import { describe, expect, it } from "vitest";
import { silentLogger } from "@svc/testing";
import { listen, Shutdown, internalEndpoints } from "../src/index.ts";

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on("error", reject)
      .end();
  });
}

describe("graceful shutdown", () => {
  it("lets an in-flight request finish, refuses new connections, then runs the earlier steps, last added first", async () => {
    const app = express();
    app.get("/slow", (_req, res) => {
      setTimeout(() => res.send("done"), 300);
    });
    const server = await listen(app, 0, "127.0.0.1");
    const order: string[] = [];
    const shutdown = new Shutdown(silentLogger())
      .add("pool", async () => {
        order.push("pool closed");
      })
      .add("http", async () => {
        await server.close(5_000);
        order.push("http closed");
      });

    const inFlight = get(server.port, "/slow");
    await new Promise((r) => setTimeout(r, 50));
    const stopping = shutdown.run("test");
    await new Promise((r) => setTimeout(r, 50));
    await expect(get(server.port, "/slow")).rejects.toThrow(/ECONNREFUSED/);
    expect(await inFlight).toEqual({ status: 200, body: "done" });
    await stopping;
    expect(order).toEqual(["http closed", "pool closed"]);
  });

  it("bounds a step that hangs and still runs the next one", async () => {
    const order: string[] = [];
    const shutdown = new Shutdown(silentLogger(), 100)
      .add("after", async () => {
        order.push("after");
      })
      .add("hangs", () => new Promise<void>(() => undefined));
    const started = Date.now();
    await shutdown.run("test");
    expect(order).toEqual(["after"]);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe("internal endpoints", () => {
  it("answers /livez without touching dependencies, /readyz 503 until every dependency has answered once, then 200 reporting outages, and 503 while draining", async () => {
    let draining = false;
    let dbUp = false;
    const server = await listen(
      internalEndpoints({
        readiness: [
          {
            name: "database",
            check: async () => {
              if (!dbUp) throw new Error("down");
            },
          },
          { name: "slow", check: () => new Promise<void>((r) => setTimeout(r, 10)) },
        ],
        isDraining: () => draining,
        checkTimeoutMs: 200,
      }),
      0,
      "127.0.0.1",
    );
    try {
      expect((await get(server.port, "/livez")).status).toBe(200);
      const starting = await get(server.port, "/readyz");
      expect(starting.status).toBe(503);
      expect(JSON.parse(starting.body)).toMatchObject({ status: "starting" });
      dbUp = true;
      const ready = await get(server.port, "/readyz");
      expect(ready.status).toBe(200);
      expect(JSON.parse(ready.body)).toMatchObject({ status: "ok" });
      // A shared dependency's outage after start is reported (from the previous probe's run, so
      // the probe never waits for a hung dependency) but keeps the pod in the Service.
      dbUp = false;
      expect(JSON.parse((await get(server.port, "/readyz")).body)).toMatchObject({ status: "ok" });
      await new Promise((r) => setTimeout(r, 50));
      const down = await get(server.port, "/readyz");
      expect(down.status).toBe(200);
      expect(JSON.parse(down.body)).toMatchObject({ status: "degraded" });
      expect(JSON.parse(down.body).checks).toContainEqual({
        name: "database",
        ok: false,
        error: "down",
      });
      expect((await get(server.port, "/livez")).status).toBe(200);
      dbUp = true;
      draining = true;
      expect((await get(server.port, "/readyz")).status).toBe(503);
    } finally {
      await server.close(100);
    }
  });

  it("answers /readyz at once after start even while a dependency check hangs", async () => {
    let hang = false;
    const server = await listen(
      internalEndpoints({
        readiness: [
          {
            name: "database",
            check: () => (hang ? new Promise<void>(() => undefined) : Promise.resolve()),
          },
        ],
        checkTimeoutMs: 1_000,
      }),
      0,
      "127.0.0.1",
    );
    try {
      expect((await get(server.port, "/readyz")).status).toBe(200);
      hang = true;
      for (let i = 0; i < 3; i += 1) {
        const started = Date.now();
        expect((await get(server.port, "/readyz")).status).toBe(200);
        expect(Date.now() - started).toBeLessThan(200);
      }
      await new Promise((r) => setTimeout(r, 1_100));
      const down = JSON.parse((await get(server.port, "/readyz")).body);
      expect(down).toMatchObject({ status: "degraded" });
      expect(down.checks[0]).toMatchObject({ name: "database", ok: false });
    } finally {
      await server.close(100);
    }
  });
});
