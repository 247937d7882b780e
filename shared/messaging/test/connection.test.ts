import { afterAll, describe, expect, it } from "vitest";
import { testEnv } from "@svc/testing";
import { connectNats, drainNats, MessagingUnavailableError, request } from "../src/index.ts";
import { startPrivateNatsServer } from "@svc/testing";
import type { PrivateNatsServer } from "@svc/testing";
import { recordingLogger, waitFor } from "./support.ts";

let server: PrivateNatsServer | undefined;
afterAll(() => server?.dispose());

describe("connectNats and drainNats", () => {
  it("connects, logs it, and drains to a closed connection (twice is harmless)", async () => {
    const logger = recordingLogger();
    const nc = await connectNats({
      servers: testEnv.TEST_NATS_URL,
      name: "messaging-connection-test",
      logger,
    });
    expect(logger.entries).toContainEqual(
      expect.objectContaining({ level: "info", msg: "nats connected" }),
    );
    await drainNats(nc);
    expect(nc.isClosed()).toBe(true);
    await drainNats(nc);
  });

  it("fails fast when nothing listens at the address instead of retrying forever", async () => {
    const started = Date.now();
    await expect(
      connectNats({
        servers: "nats://127.0.0.1:1",
        name: "nowhere",
        logger: recordingLogger(),
        connectTimeoutMs: 1_000,
      }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("logs the outage and the reconnect, and bounds a drain while the server is down", async () => {
    server = await startPrivateNatsServer();
    const logger = recordingLogger();
    const nc = await connectNats({
      servers: server.url,
      name: "outage",
      logger,
      reconnectTimeWaitMs: 100,
    });
    await server.kill();
    await waitFor("the disconnect log", () =>
      logger.entries.some((e) => e.msg === "nats disconnected; reconnecting"),
    );
    // Requests during the outage fail as "unavailable", which callers turn into 503.
    await expect(request(nc, "any.subject", {}, { timeoutMs: 200 })).rejects.toBeInstanceOf(
      MessagingUnavailableError,
    );
    await server.restart();
    await waitFor("the reconnect log", () =>
      logger.entries.some((e) => e.msg === "nats reconnected"),
    );
    await server.kill();
    const started = Date.now();
    await drainNats(nc, { timeoutMs: 300 });
    expect(nc.isClosed()).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("reports a request on a closed connection as unavailable", async () => {
    const nc = await connectNats({
      servers: testEnv.TEST_NATS_URL,
      name: "closed",
      logger: recordingLogger(),
    });
    await drainNats(nc);
    await expect(request(nc, "any.subject", {}, { timeoutMs: 200 })).rejects.toMatchObject({
      reason: "connection_closed",
    });
  });

  it("leaves the caller's stack out of a request timeout when async traces are off", async () => {
    const connect = (asyncTraces?: boolean) =>
      connectNats({
        servers: testEnv.TEST_NATS_URL,
        name: "async-traces",
        logger: recordingLogger(),
        ...(asyncTraces !== undefined && { asyncTraces }),
      });
    const subject = `async-traces.${Date.now()}`;
    const silent = await connect();
    // Answers nothing, so requests time out rather than finding no responders.
    silent.subscribe(subject, { callback: () => {} });
    await silent.flush();
    async function callerNamedInTheStack(nc: Awaited<ReturnType<typeof connect>>) {
      return nc.request(subject, "", { timeout: 100 }).catch((err: Error) => err.stack ?? "");
    }
    const traced = await connect();
    const untraced = await connect(false);
    try {
      expect(await callerNamedInTheStack(traced)).toContain("callerNamedInTheStack");
      const stack = await callerNamedInTheStack(untraced);
      expect(stack).toContain("TimeoutError");
      expect(stack).not.toContain("callerNamedInTheStack");
    } finally {
      await Promise.all([silent, traced, untraced].map((nc) => drainNats(nc)));
    }
  });
});
