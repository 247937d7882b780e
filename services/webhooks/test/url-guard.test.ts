import { createHook } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGuardedClient } from "../src/outbound/guarded-client.ts";
import { addressProblem } from "../src/domain/url-policy.ts";
import { createUrlGuard } from "../src/outbound/url-guard.ts";
import type { HostResolver } from "../src/outbound/resolver.ts";
import { createSecretBox } from "../src/store/secret-box.ts";
import { createTestCa, type TestCa } from "@svc/testing";
import { startReceiver, type Receiver } from "./support/receiver.ts";
import {
  fakeResolver,
  SECRET_KEY,
  startHarness,
  waitFor,
  type Harness,
} from "./support/harness.ts";

/**
 * The URL rules against hostile input: every URL here is rejected when a subscription is created
 * (422 naming `url`) and again when a delivery is attempted (a guard failure, never retried, and
 * the receiver listening on 127.0.0.1 sees nothing). Loopback literals carry the receiver's port,
 * so a guard that let one through would show up as a request.
 */
const resolver = fakeResolver({
  "hooks.example.com": ["93.184.216.34"],
  "private.example.com": ["10.1.2.3"],
  "loop.example.com": ["127.0.0.1"],
  "mixed.example.com": ["93.184.216.34", "127.0.0.1"],
  "mixed6.example.com": ["2606:2800:220:1:248:1893:25c8:1946", "::1"],
  "mapped.example.com": ["::ffff:127.0.0.1"],
  "ula.example.com": ["fd12:3456::1"],
  "nat64.example.com": ["64:ff9b::a9fe:a9fe"],
  "sixtofour.example.com": ["2002:7f00:1::1"],
  "metadata-alias.example.com": ["169.254.169.254"],
  "cgnat.example.com": ["100.64.12.1"],
  // Names that would be refused before DNS, answering loopback in case they were not.
  localhost: ["127.0.0.1"],
  "localhost.": ["127.0.0.1"],
  "metadata.google.internal": ["169.254.169.254"],
});

let ca: TestCa;
let receiver: Receiver;
let h: Harness;
let port: number;

beforeAll(async () => {
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  port = receiver.port;
  // Production-like guard: no loopback exception, in the API and in the dispatcher.
  h = await startHarness({
    resolver,
    caFile: ca.caFile,
    apiEnv: { WEBHOOK_ALLOW_LOOPBACK: "false" },
  });
  await h.startDispatcher({ WEBHOOK_ALLOW_LOOPBACK: "false" });
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
  ca?.dispose();
});

const hostile = (): string[] => [
  // IPv4 loopback in every spelling the URL parser accepts.
  `https://127.0.0.1:${port}/x`,
  `https://2130706433:${port}/x`,
  `https://0177.0.0.1:${port}/x`,
  `https://0x7f.1:${port}/x`,
  `https://0x7f000001:${port}/x`,
  `https://127.1:${port}/x`,
  `https://017700000001:${port}/x`,
  `https://127.0.0.1.:${port}/x`,
  // IPv6 loopback and IPv4-in-IPv6 forms.
  `https://[::1]:${port}/x`,
  `https://[0:0:0:0:0:0:0:1]:${port}/x`,
  `https://[::ffff:127.0.0.1]:${port}/x`,
  `https://[::ffff:7f00:1]:${port}/x`,
  `https://[::127.0.0.1]:${port}/x`,
  `https://[64:ff9b::7f00:1]:${port}/x`,
  `https://[64:ff9b::a00:1]/x`,
  `https://[64:ff9b:1::a00:1]/x`,
  `https://[2002:a00:1::]/x`,
  `https://[2002:7f00:1::]:${port}/x`,
  `https://[::ffff:169.254.169.254]/latest`,
  `https://[::ffff:a9fe:a9fe]/latest`,
  `https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x`,
  // Other forbidden IPv6 ranges.
  "https://[fe80::1]/x",
  "https://[fc00::1]/x",
  "https://[fd00:ec2::254]/latest",
  "https://[ff02::1]/x",
  "https://[::]/x",
  "https://[2001:db8::1]/x",
  // Private, link-local, CGNAT, multicast, unspecified, documentation, benchmarking, metadata IPv4.
  "https://10.0.0.1/x",
  "https://172.16.5.4/x",
  "https://192.168.1.1/x",
  "https://169.254.169.254/latest/meta-data/",
  "https://100.64.0.1/x",
  "https://100.100.100.200/latest",
  "https://224.0.0.1/x",
  "https://0.0.0.0/x",
  "https://255.255.255.255/x",
  "https://192.0.2.1/x",
  "https://198.51.100.7/x",
  "https://203.0.113.9/x",
  "https://198.18.0.1/x",
  "https://240.0.0.1/x",
  "https://168.63.129.16/machine",
  // Names that are internal by definition.
  `https://localhost:${port}/x`,
  `https://localhost.:${port}/x`,
  `https://LOCALHOST:${port}/x`,
  `https://api.localhost:${port}/x`,
  "https://metadata.google.internal/computeMetadata/v1/",
  "https://metadata.google.internal./computeMetadata/v1/",
  "https://metadata/computeMetadata/v1/",
  "https://kubernetes.default.svc.cluster.local/api",
  // Names resolving (partly) to forbidden addresses.
  `https://loop.example.com:${port}/x`,
  "https://private.example.com/x",
  `https://mixed.example.com:${port}/x`,
  `https://mixed6.example.com:${port}/x`,
  `https://mapped.example.com:${port}/x`,
  "https://ula.example.com/x",
  "https://nat64.example.com/x",
  `https://sixtofour.example.com:${port}/x`,
  "https://metadata-alias.example.com/latest",
  "https://cgnat.example.com/x",
  // Scheme and userinfo tricks; plain http to loopback (only the local stack's setting allows it).
  `http://hooks.example.com/x`,
  `http://127.0.0.1:${port}/x`,
  `http://localhost:${port}/x`,
  `http://[::1]:${port}/x`,
  `https://hooks.example.com@127.0.0.1:${port}/x`,
  `https://user:pass@hooks.example.com/x`,
  "ftp://hooks.example.com/x",
  "file:///etc/passwd",
  "https://hooks.example.com\t.evil/x",
  "//hooks.example.com/x",
];

describe("URL rules at creation", () => {
  it("has at least 40 hostile cases", () => {
    expect(hostile().length).toBeGreaterThanOrEqual(40);
  });

  it.each(hostile().map((u) => [u]))("rejects %s with 422 naming url", async (url) => {
    const res = await h.api("client-adversary", "POST", "/v1/webhooks", {
      url,
      event_types: ["vacancy.created"],
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: "url" })]);
    // The reason never echoes what an internal name resolved to.
    expect(res.body.error.message).not.toMatch(/10\.1\.2\.3|127\.0\.0\.1 is/);
  });

  it("accepts a public https URL, also one resolving only to public IPv6", async () => {
    resolver.set("v6.example.com", ["2606:2800:220:1:248:1893:25c8:1946"]);
    for (const url of [
      "https://hooks.example.com/in",
      "https://v6.example.com/in",
      "https://93.184.216.34/in",
      "https://[2606:2800:220:1:248:1893:25c8:1946]/in",
    ]) {
      const res = await h.api("client-adversary", "POST", "/v1/webhooks", {
        url,
        event_types: ["vacancy.created"],
      });
      expect(res.status, url).toBe(201);
    }
  });

  it("rejects a name that does not resolve", async () => {
    const res = await h.api("client-adversary", "POST", "/v1/webhooks", {
      url: "https://nxdomain.example.com/in",
      event_types: ["vacancy.created"],
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details[0]).toEqual({
      field: "url",
      message: "url host does not resolve",
    });
  });
});

describe("URL rules at delivery", () => {
  it("refuses every hostile URL again at delivery: one guard failure each, no retry, nothing reaches the receiver", async () => {
    // Rows written straight into the store, as if the rules had been looser when they were created.
    const box = createSecretBox(SECRET_KEY);
    const owner = "client-legacy-rows";
    const ids: string[] = [];
    for (const url of hostile()) {
      const id = randomUUID();
      ids.push(id);
      await h.pool.query(
        "INSERT INTO webhooks.subscriptions (id, owner_client_id, url, event_types, enabled, secret_sealed, created_at, updated_at) VALUES ($1, $2, $3, $4, true, $5, now(), now())",
        [id, owner, url, ["practice.created"], box.seal("whsec_test", id)],
      );
    }
    const event = await h.publishEvent("practice.created");
    const rows = await waitFor(
      "every delivery to end",
      async () => {
        const { rows } = await h.pool.query(
          "SELECT d.status, d.failure_reason, d.attempt_count, s.url FROM webhooks.deliveries d JOIN webhooks.subscriptions s ON s.id = d.subscription_id WHERE d.event_uuid = $1",
          [event.event_uuid],
        );
        return rows.length === ids.length && rows.every((r) => r.status !== "pending")
          ? rows
          : undefined;
      },
      15_000,
    );
    for (const row of rows) {
      expect({
        url: row.url,
        status: row.status,
        reason: row.failure_reason,
        attempts: row.attempt_count,
      }).toEqual({ url: row.url, status: "failed", reason: "blocked_url", attempts: 1 });
    }
    const { rows: attempts } = await h.pool.query(
      "SELECT DISTINCT a.error_class, a.status_code FROM webhooks.delivery_attempts a JOIN webhooks.deliveries d ON d.id = a.delivery_id WHERE d.event_uuid = $1",
      [event.event_uuid],
    );
    expect(attempts).toEqual([{ error_class: "blocked_url", status_code: null }]);
    expect(receiver.received()).toHaveLength(0);
  });

  it("refuses a name that resolved public at creation and private at delivery", async () => {
    resolver.set("rebind.example.com", ["93.184.216.34"]);
    const created = await h.api("client-rebind", "POST", "/v1/webhooks", {
      url: `https://rebind.example.com:${port}/x`,
      event_types: ["candidate.created"],
    });
    expect(created.status).toBe(201);
    resolver.set("rebind.example.com", ["127.0.0.1"]);
    const event = await h.publishEvent("candidate.created");
    const id = created.body.data.webhook_uuid;
    const delivery = await waitFor("the delivery to end", async () => {
      const list = await h.api(
        "client-rebind",
        "GET",
        `/v1/webhooks/${id}/deliveries?status=failed`,
      );
      return list.body.data.find((d: { event_uuid: string }) => d.event_uuid === event.event_uuid);
    });
    const detail = await h.api(
      "client-rebind",
      "GET",
      `/v1/webhooks/${id}/deliveries/${delivery.delivery_uuid}`,
    );
    expect(detail.body.data).toMatchObject({
      status: "failed",
      failure_reason: "blocked_url",
      attempt_count: 1,
    });
    expect(detail.body.data.attempts[0]).toMatchObject({
      outcome: "failed",
      error_class: "blocked_url",
      status_code: null,
    });
    expect(detail.body.data.attempts[0].error_detail).toContain("not publicly reachable");
    expect(receiver.received()).toHaveLength(0);
  });
});

describe("the guarded client", () => {
  function countingResolver(answers: Record<string, string[]>): HostResolver & { calls: string[] } {
    const inner = fakeResolver(answers);
    const calls: string[] = [];
    return { calls, resolve: (name) => (calls.push(name), inner.resolve(name)) };
  }

  it("connects to the vetted address, resolving once, with the hostname as SNI and Host", async () => {
    // hooks.example.com exists in public DNS; here it "resolves" to the receiver. A client that
    // resolved the name again itself would not reach it.
    const counting = countingResolver({ "hooks.example.com": ["127.0.0.1"] });
    const client = createGuardedClient({
      guard: createUrlGuard({ resolver: counting, dnsTimeoutMs: 1_000, allowLoopback: true }),
      timeoutMs: 2_000,
      readCapBytes: 4_096,
      extraCa: ca.caPem,
      userAgent: "test",
    });
    try {
      const result = await client.post(`https://hooks.example.com:${port}/pinned`, "{}", {
        "x-svc-event-id": "e1",
      });
      expect(result).toMatchObject({ kind: "response", statusCode: 204 });
      expect(counting.calls).toEqual(["hooks.example.com"]);
      const [got] = receiver.received("/pinned");
      expect(got).toMatchObject({
        host: `hooks.example.com:${port}`,
        servername: "hooks.example.com",
      });
      await client.post(`https://hooks.example.com:${port}/pinned`, "{}", {
        "x-svc-event-id": "e2",
      });
      // Vetted again on every request.
      expect(counting.calls).toEqual(["hooks.example.com", "hooks.example.com"]);
    } finally {
      await client.close();
    }
  });

  it("refuses after the name turns private, even with a pooled connection to the old address", async () => {
    const answers = fakeResolver({ "hooks.example.com": ["127.0.0.1"] });
    const guard = createUrlGuard({ resolver: answers, dnsTimeoutMs: 1_000, allowLoopback: true });
    const client = createGuardedClient({
      guard,
      timeoutMs: 2_000,
      readCapBytes: 4_096,
      extraCa: ca.caPem,
      userAgent: "test",
    });
    try {
      expect((await client.post(`https://hooks.example.com:${port}/pool`, "{}", {})).kind).toBe(
        "response",
      );
      answers.set("hooks.example.com", ["10.0.0.7"]);
      expect(await client.post(`https://hooks.example.com:${port}/pool`, "{}", {})).toMatchObject({
        kind: "error",
        errorClass: "blocked_url",
      });
      expect(receiver.received("/pool")).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("leaves no timer running once an attempt is answered", async () => {
    // A timer still running after the answer (AbortSignal.timeout) fires at the timeout anyway
    // and builds an abort error with a stack, for every attempt of a burst
    // (docs/decisions/delivery-throughput.md). A distinct timeout picks out the attempt's timers.
    const timeoutMs = 4_321;
    const running = new Set<number>();
    const hook = createHook({
      init(id, type, _trigger, resource) {
        if (
          type === "Timeout" &&
          (resource as { _idleTimeout?: number })._idleTimeout === timeoutMs
        )
          running.add(id);
      },
      destroy(id) {
        running.delete(id);
      },
    }).enable();
    const client = createGuardedClient({
      guard: createUrlGuard({
        resolver: fakeResolver({ "hooks.example.com": ["127.0.0.1"] }),
        dnsTimeoutMs: 1_000,
        allowLoopback: true,
      }),
      timeoutMs,
      readCapBytes: 4_096,
      extraCa: ca.caPem,
      userAgent: "test",
    });
    try {
      for (let i = 0; i < 3; i++)
        expect(
          await client.post(`https://hooks.example.com:${port}/timers`, "{}", {
            "x-svc-event-id": `t${i}`,
          }),
        ).toMatchObject({ kind: "response", statusCode: 204 });
      // Destroy hooks of cleared timers run on a later turn of the event loop.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(running.size).toBe(0);
    } finally {
      hook.disable();
      await client.close();
    }
  });
});

describe("address rules", () => {
  it.each([
    ["8.8.8.8", undefined],
    ["2606:4700:4700::1111", undefined],
    ["::ffff:8.8.8.8", undefined],
    ["64:ff9b::808:808", undefined],
    ["127.0.0.1", "loopback"],
    ["::ffff:10.0.0.1", "private via ipv4Mapped"],
    ["2002:c0a8:101::1", "private via 6to4"],
    ["64:ff9b:1::808:808", "rfc6052 (translation prefix)"],
    ["169.254.169.254", "cloud metadata address"],
    ["fe80::1%eth0", "linkLocal"],
    ["not-an-ip", "unparseable address"],
  ])("%s → %s", (address, problem) => {
    expect(addressProblem(address)).toBe(problem);
  });

  it("allows loopback only when told to (tests), and nothing else", () => {
    expect(addressProblem("127.0.0.1", true)).toBeUndefined();
    expect(addressProblem("::1", true)).toBeUndefined();
    expect(addressProblem("10.0.0.1", true)).toBe("private");
    expect(addressProblem("169.254.169.254", true)).toBe("cloud metadata address");
  });
});
