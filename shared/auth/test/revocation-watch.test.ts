import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectNats,
  drainNats,
  jetstreamManager,
  names,
  openKv,
  type KV,
  type NatsConnection,
} from "@svc/messaging";
import { createMetrics, sampleValue } from "@svc/telemetry";
import { recordingLogger, TcpProxy, testEnv, waitFor as waitUntil } from "@svc/testing";
import {
  REVOCATION_BUCKET_OPTIONS,
  encodeRevocation,
  revocationKey,
  startRevocationFeed,
  watchRevocations,
  type AccessToken,
  type ClientRevocation,
} from "../src/index.ts";

const namespace = `t${randomBytes(5).toString("hex")}`;
const bucket = names(namespace).revocationsBucket;
let nc: NatsConnection;
let kv: KV;

beforeAll(async () => {
  nc = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: "revocation-watch-test",
    logger: recordingLogger(),
  });
  kv = await openKv(nc, bucket, REVOCATION_BUCKET_OPTIONS);
});
afterAll(async () => {
  await (await jetstreamManager(nc)).streams.delete(`KV_${bucket}`);
  await drainNats(nc);
});

let counter = 0;
const newClientId = () => `cl_watch${++counter}_${randomBytes(3).toString("hex")}`;
const tokenOf = (clientId: string): AccessToken => ({
  clientId,
  scopes: new Set(),
  jti: "j",
  issuedAt: 0,
  expiresAt: 0,
});
const revoke = (
  clientId: string,
  notAfterMs = Date.now(),
  reason: ClientRevocation["reason"] = "revoked",
) => kv.put(revocationKey(clientId), encodeRevocation({ clientId, notAfterMs, reason }));

async function waitFor(what: string, check: () => boolean, timeoutMs = 2_000): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - started;
}

describe("watchRevocations: a RevocationView over the JetStream KV bucket", () => {
  it("answers unknown until the bucket is loaded, then knows the revocations already in it", async () => {
    const before = newClientId();
    await revoke(before);
    const watch = watchRevocations({ kv, logger: recordingLogger() });
    try {
      expect(watch.status(tokenOf(before))).toBe("unknown");
      expect(watch.isLoaded()).toBe(false);
      await watch.loaded;
      expect(watch.status(tokenOf(before))).toBe("revoked");
      expect(watch.status(tokenOf(newClientId()))).toBe("valid");
    } finally {
      await watch.stop();
    }
  });

  it("sees a revocation written while watching within 2 s and tells listeners", async () => {
    const watch = watchRevocations({ kv, logger: recordingLogger() });
    const heard: string[] = [];
    watch.onRevocation((r) => heard.push(r.clientId));
    try {
      await watch.loaded;
      const id = newClientId();
      expect(watch.status(tokenOf(id))).toBe("valid");
      await revoke(id);
      expect(
        await waitFor("the revocation", () => watch.status(tokenOf(id)) === "revoked"),
      ).toBeLessThan(2_000);
      expect(heard).toContain(id);
    } finally {
      await watch.stop();
    }
  });

  it("applies a scheduled expiry at its instant, and forgets an entry whose key was deleted", async () => {
    const watch = watchRevocations({ kv, logger: recordingLogger() });
    try {
      await watch.loaded;
      const scheduled = newClientId();
      await revoke(scheduled, Date.now() + 600, "expired");
      await waitFor("the schedule", () => watch.get(scheduled) !== undefined);
      expect(watch.status(tokenOf(scheduled))).toBe("valid");
      await waitFor("the expiry instant", () => watch.status(tokenOf(scheduled)) === "revoked");
      await kv.delete(revocationKey(scheduled));
      await waitFor("the delete", () => watch.status(tokenOf(scheduled)) === "valid");
    } finally {
      await watch.stop();
    }
  });

  it("logs and skips records it cannot read, and goes on", async () => {
    const logger = recordingLogger();
    const watch = watchRevocations({ kv, logger, probeIntervalMs: 50 });
    try {
      await watch.loaded;
      const broken = newClientId();
      await kv.put(revocationKey(broken), JSON.stringify({ v: 99, client_id: broken }));
      await kv.put(
        revocationKey(newClientId()),
        JSON.stringify({ v: 1, client_id: "cl_someone_else", not_after_ms: 0, reason: "revoked" }),
      );
      const later = newClientId();
      await revoke(later);
      await waitFor(
        "the good record after the bad ones",
        () => watch.status(tokenOf(later)) === "revoked",
      );
      expect(watch.status(tokenOf(broken))).toBe("valid");
      expect(
        logger.entries.filter((l) => l.msg === "revocation record rejected; skipped"),
      ).toHaveLength(2);
      // Unreadable records still count as seen: the watch is confirmed, not restarted.
      await new Promise((r) => setTimeout(r, 300));
      expect(logger.entries.some((l) => l.msg === "restarting the revocation watch")).toBe(false);
      expect(watch.health().confirmedAgoMs).toBeLessThan(300);
    } finally {
      await watch.stop();
    }
  });
});

describe("watchRevocations when the bucket is deleted and made anew", () => {
  it("starts over and sees what is written to the new bucket", async () => {
    const other = names(`t${randomBytes(5).toString("hex")}`).revocationsBucket;
    const jsm = await jetstreamManager(nc);
    const first = await openKv(nc, other, REVOCATION_BUCKET_OPTIONS);
    for (const id of [newClientId(), newClientId(), newClientId()])
      await first.put(
        revocationKey(id),
        encodeRevocation({ clientId: id, notAfterMs: 0, reason: "revoked" }),
      );
    const watch = watchRevocations({
      kv: first,
      logger: recordingLogger(),
      probeIntervalMs: 100,
      restartAfterMs: 500,
    });
    try {
      await watch.loaded;
      await jsm.streams.delete(`KV_${other}`);
      const again = await openKv(nc, other, REVOCATION_BUCKET_OPTIONS);
      const id = newClientId();
      await again.put(
        revocationKey(id),
        encodeRevocation({ clientId: id, notAfterMs: 0, reason: "revoked" }),
      );
      await waitFor(
        "the revocation in the new bucket",
        () => watch.status(tokenOf(id)) === "revoked",
        5_000,
      );
    } finally {
      await watch.stop();
      await jsm.streams.delete(`KV_${other}`).catch(() => false);
    }
  });
});

describe("watchRevocations when NATS cannot be reached", () => {
  let proxy: TcpProxy;
  let proxied: NatsConnection;
  let proxiedKv: KV;
  beforeAll(async () => {
    const target = new URL(testEnv.TEST_NATS_URL);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 4222) });
    proxied = await connectNats({
      servers: `nats://127.0.0.1:${proxy.port}`,
      name: "revocation-watch-proxied",
      logger: recordingLogger(),
      reconnectTimeWaitMs: 100,
    });
    proxiedKv = await openKv(proxied, bucket, REVOCATION_BUCKET_OPTIONS);
  });
  afterAll(async () => {
    await drainNats(proxied, { timeoutMs: 1_000 });
    await proxy.close();
  });

  it("keeps the last known list for maxStalenessMs, then answers unknown; known revocations stay revoked", async () => {
    const watch = watchRevocations({
      kv: proxiedKv,
      logger: recordingLogger(),
      maxStalenessMs: 1_000,
      probeIntervalMs: 100,
    });
    try {
      await watch.loaded;
      const revoked = newClientId();
      const good = newClientId();
      await revoke(revoked);
      await waitFor("the revocation", () => watch.status(tokenOf(revoked)) === "revoked");
      proxy.pause();
      expect(watch.status(tokenOf(good))).toBe("valid");
      const blind = await waitFor(
        "staleness",
        () => watch.status(tokenOf(good)) === "unknown",
        3_000,
      );
      expect(blind).toBeGreaterThan(500);
      expect(watch.status(tokenOf(revoked))).toBe("revoked");
      proxy.resume();
      await waitFor(
        "confirmation after the outage",
        () => watch.status(tokenOf(good)) === "valid",
        5_000,
      );
    } finally {
      proxy.resume();
      await watch.stop();
    }
  });

  it("reconnects after the connection is cut and sees what was revoked meanwhile", async () => {
    const watch = watchRevocations({
      kv: proxiedKv,
      logger: recordingLogger(),
      maxStalenessMs: 10_000,
      probeIntervalMs: 100,
      restartAfterMs: 1_000,
    });
    try {
      await watch.loaded;
      const id = newClientId();
      proxy.cut();
      await revoke(id);
      await waitFor(
        "the revocation written during the cut",
        () => watch.status(tokenOf(id)) === "revoked",
        8_000,
      );
    } finally {
      await watch.stop();
    }
  });
});

describe("startRevocationFeed", () => {
  it("connects from configuration, becomes ready once loaded, and answers from the bucket", async () => {
    const id = newClientId();
    await revoke(id);
    const feed = startRevocationFeed({
      config: {
        NATS_SERVERS: [testEnv.TEST_NATS_URL],
        NATS_NAMESPACE: namespace,
        REVOCATION_MAX_STALENESS_MS: 60_000,
      },
      name: "feed-test",
      logger: recordingLogger(),
    });
    try {
      await feed.loaded;
      await expect(feed.readiness.check()).resolves.toBeUndefined();
      expect(feed.view.status(tokenOf(id))).toBe("revoked");
      expect(feed.bucket()).toBeDefined();
    } finally {
      await feed.stop();
    }
  });
});

describe("auth.revocation_list.staleness", () => {
  it("reports about a second while the watch is healthy, grows while NATS cannot be reached, and falls back once it can", async () => {
    const target = new URL(testEnv.TEST_NATS_URL);
    const proxy = await TcpProxy.start({
      host: target.hostname,
      port: Number(target.port || 4222),
    });
    const proxied = await connectNats({
      servers: `nats://127.0.0.1:${proxy.port}`,
      name: "revocation-staleness-proxied",
      logger: recordingLogger(),
      reconnectTimeWaitMs: 100,
    });
    const metrics = createMetrics({
      serviceName: "auth-test",
      serviceVersion: "0.0.0",
      environment: "sandbox",
      otlp: false,
    });
    const staleness = async () =>
      sampleValue(await metrics.scrape(), "auth_revocation_list_staleness");
    const feed = startRevocationFeed({
      config: { NATS_SERVERS: [], NATS_NAMESPACE: namespace, REVOCATION_MAX_STALENESS_MS: 60_000 },
      name: "feed-staleness-test",
      logger: recordingLogger(),
      connection: proxied,
      probeIntervalMs: 100,
      meter: metrics.meter,
    });
    try {
      await feed.loaded;
      await waitUntil("a fresh confirmation", async () => ((await staleness()) ?? 99) < 1, 3_000);
      proxy.pause();
      await waitUntil("staleness to grow", async () => ((await staleness()) ?? 0) > 1.5, 5_000);
      proxy.resume();
      await waitUntil(
        "confirmation after the outage",
        async () => ((await staleness()) ?? 99) < 1,
        10_000,
      );
    } finally {
      proxy.resume();
      await feed.stop();
      await drainNats(proxied, { timeoutMs: 1_000 });
      await proxy.close();
      await metrics.shutdown();
    }
  });
});
