import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEnv } from "@svc/testing";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { drainNats, names, openKv, watchKv } from "../src/index.ts";
import type { KvChange } from "../src/index.ts";
import {
  connectForTest,
  deleteNamespaceStreams,
  recordingLogger,
  testNamespace,
  waitFor,
} from "./support.ts";

const ns = testNamespace();
const n = names(ns);
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  ({ nc, jsm } = await connectForTest(testEnv.TEST_NATS_URL, "messaging-kv-test"));
});
afterAll(async () => {
  await deleteNamespaceStreams(jsm, ns);
  await drainNats(nc);
});

type Revocation = { revokedAt: string };

describe("openKv", () => {
  it("creates a bucket on this server and stores, reads and deletes values", async () => {
    const kv = await openKv(nc, n.revocationsBucket, { history: 1, ttlMs: 3_600_000 });
    await kv.put("client-1", JSON.stringify({ revokedAt: "2026-01-01T00:00:00Z" }));
    expect((await kv.get("client-1"))?.json()).toEqual({ revokedAt: "2026-01-01T00:00:00Z" });
    await kv.delete("client-1");
    expect((await kv.get("client-1"))?.operation).toBe("DEL");
    const status = await kv.status();
    expect(status).toMatchObject({ history: 1, ttl: 3_600_000 });
  });

  it("applies changed history and ttl to an existing bucket", async () => {
    const bucket = `${ns}_reconfigured`;
    await openKv(nc, bucket, { history: 1 });
    const kv = await openKv(nc, bucket, { history: 5, ttlMs: 60_000 });
    expect(await kv.status()).toMatchObject({ history: 5, ttl: 60_000 });
  });
});

describe("watchKv", () => {
  it("delivers the current values, becomes ready, then delivers updates and deletes", async () => {
    const kv = await openKv(nc, `${ns}_watched`, { history: 1 });
    await kv.put("a", JSON.stringify({ revokedAt: "t1" }));
    await kv.put("b", JSON.stringify({ revokedAt: "t2" }));
    await kv.put("a", JSON.stringify({ revokedAt: "t3" }));
    const changes: Array<KvChange<Revocation>> = [];
    const watcher = await watchKv<Revocation>(kv, {
      logger: recordingLogger(),
      onChange: (c) => changes.push(c),
    });
    await watcher.ready;
    // Only the last value of each key, all marked as not-updates.
    expect(changes.map((c) => [c.key, c.value?.revokedAt, c.isUpdate])).toEqual([
      ["b", "t2", false],
      ["a", "t3", false],
    ]);
    await kv.put("c", JSON.stringify({ revokedAt: "t4" }));
    await kv.delete("b");
    await waitFor("the update and the delete", () => changes.length === 4);
    expect(changes.slice(2).map((c) => [c.key, c.operation, c.value, c.isUpdate])).toEqual([
      ["c", "PUT", { revokedAt: "t4" }, true],
      ["b", "DEL", null, true],
    ]);
    await watcher.stop();
  });

  it("is ready at once on an empty bucket and still sees later values", async () => {
    const kv = await openKv(nc, `${ns}_empty`, { history: 1 });
    const changes: Array<KvChange<Revocation>> = [];
    const watcher = await watchKv<Revocation>(kv, {
      logger: recordingLogger(),
      onChange: (c) => changes.push(c),
    });
    await watcher.ready;
    await kv.put("x", JSON.stringify({ revokedAt: "t" }));
    await waitFor("the first value", () => changes.length === 1);
    expect(changes[0]).toMatchObject({ key: "x", isUpdate: true });
    await watcher.stop();
  });

  it("watches only the keys matching a pattern, and skips values that fail validation", async () => {
    const kv = await openKv(nc, `${ns}_filtered`, { history: 1 });
    await kv.put("client.1", JSON.stringify({ revokedAt: "t1" }));
    await kv.put("other.1", JSON.stringify({ revokedAt: "t2" }));
    await kv.put("client.2", "not json");
    const logger = recordingLogger();
    const changes: Array<KvChange<Revocation>> = [];
    const watcher = await watchKv<Revocation>(kv, {
      key: "client.*",
      logger,
      onChange: (c) => changes.push(c),
    });
    await watcher.ready;
    expect(changes.map((c) => c.key)).toEqual(["client.1"]);
    expect(logger.entries).toContainEqual(
      expect.objectContaining({ level: "error", msg: "kv value rejected; skipped" }),
    );
    await watcher.stop();
  });
});
