import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateMariaDb, type PrivateMariaDb } from "@svc/testing";
import { SourceUnavailableError } from "@svc/errors";
import { createLegacyDb } from "../src/index.ts";

// A legacy server that hangs (SIGSTOP: connections accepted, nothing answered) while requests
// keep coming: every query must still fail within its bounds, also one that waited for a pooled
// connection behind others.
let server: PrivateMariaDb;
beforeAll(async () => void (server = await startPrivateMariaDb()), 60_000);
afterAll(async () => server?.cleanup());

describe("legacy source that hangs under load", () => {
  it("fails every query within the connect and query timeouts, however many wait for a connection, and recovers", async () => {
    const connectTimeoutMs = 300;
    const queryTimeoutMs = 500;
    const legacy = createLegacyDb({
      url: server.urlFor("mysql"),
      connectTimeoutMs,
      queryTimeoutMs,
      connectionLimit: 2,
    });
    try {
      await Promise.all([legacy.ping(), legacy.ping()]);
      server.freeze();
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const started = Date.now();
          const error = await legacy.query("SELECT 1").then(
            () => undefined,
            (err: unknown) => err,
          );
          return { error, ms: Date.now() - started };
        }),
      );
      server.thaw();
      for (const o of outcomes) expect(o.error).toBeInstanceOf(SourceUnavailableError);
      const slowest = Math.max(...outcomes.map((o) => o.ms));
      expect(slowest, `slowest query ${slowest} ms`).toBeLessThan(
        connectTimeoutMs + queryTimeoutMs + 1_000,
      );
      expect(await legacy.query<{ n: number }>("SELECT 1 AS n")).toEqual([{ n: 1 }]);
    } finally {
      server.thaw();
      await legacy.close();
    }
  }, 60_000);

  it("closes without an error while a connection's handshake hangs, within the connect timeout", async () => {
    const connectTimeoutMs = 300;
    const legacy = createLegacyDb({
      url: server.urlFor("mysql"),
      connectTimeoutMs,
      queryTimeoutMs: 500,
      connectionLimit: 2,
    });
    server.freeze();
    try {
      // The server accepts the TCP connection but never sends its greeting.
      const pending = legacy.ping().catch((err: unknown) => err);
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      await expect(legacy.close()).resolves.toBeUndefined();
      expect(Date.now() - started).toBeLessThan(connectTimeoutMs + 1_000);
      expect(await pending).toBeInstanceOf(SourceUnavailableError);
    } finally {
      server.thaw();
    }
  }, 30_000);
});
