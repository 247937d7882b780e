import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ConfigError } from "@svc/config";
import { loadConfig, loadDispatcherConfig, SPEC_RETRY_SCHEDULE_MS } from "../src/config.ts";
import { classify } from "../src/domain/classify.ts";
import { BlockedUrlError, isLoopbackUrl, parseSubscriptionUrl } from "../src/domain/url-policy.ts";
import { nextStep, retryPolicy } from "../src/domain/retry-policy.ts";
import { deliveryHeaders, generateSecret, signatureHeader } from "../src/domain/signing.ts";
import { deliveryMessageId } from "../src/messaging/nats-delivery-queue.ts";
import { microBatcher } from "../src/store/micro-batcher.ts";
import { createSecretBox, openedSecretsCache } from "../src/store/secret-box.ts";
import { inFlightCaps } from "../src/workers/dispatcher/in-flight-caps.ts";
import { verifySignatures } from "./support/receiver.ts";

const KEY = Buffer.alloc(32, 7).toString("base64");

describe("signing", () => {
  it("is v1= hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed with the secret's text", () => {
    const body = '{"event_uuid":"e","event_type":"system.ping"}';
    const expected = createHmac("sha256", "whsec_abc").update(`1700000000.${body}`).digest("hex");
    expect(signatureHeader(["whsec_abc"], 1_700_000_000, body)).toBe(`v1=${expected}`);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it("signs with every secret of a rotation overlap, newest first, and a consumer holding either verifies", () => {
    const header = signatureHeader(["whsec_new", "whsec_old"], 1_700_000_000, "{}");
    expect(header.split(",")).toHaveLength(2);
    expect(verifySignatures(header, "1700000000", "{}", "whsec_new")).toBe(true);
    expect(verifySignatures(header, "1700000000", "{}", "whsec_old")).toBe(true);
    expect(verifySignatures(header, "1700000000", "{}", "whsec_other")).toBe(false);
    // The timestamp is signed, and so is the exact body.
    expect(verifySignatures(header, "1700000001", "{}", "whsec_new")).toBe(false);
    expect(verifySignatures(header, "1700000000", "{ }", "whsec_new")).toBe(false);
  });

  it("sends the contract's headers plus the delivery id", () => {
    const headers = deliveryHeaders({
      eventUuid: "e1",
      eventType: "vacancy.created",
      deliveryUuid: "d1",
      timestampSeconds: 42,
      body: "{}",
      secrets: ["s"],
    });
    expect(Object.keys(headers).sort()).toEqual([
      "x-svc-delivery-id",
      "x-svc-event-id",
      "x-svc-event-type",
      "x-svc-signature",
      "x-svc-timestamp",
    ]);
    expect(headers["x-svc-timestamp"]).toBe("42");
  });
});

describe("secret box (AES-256-GCM)", () => {
  const box = createSecretBox(KEY);

  it("opens what it sealed, for the same subscription only, and detects tampering", () => {
    const secret = generateSecret();
    const sealed = box.seal(secret, "sub-1");
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed, "sub-1")).toBe(secret);
    expect(() => box.open(sealed, "sub-2")).toThrow();
    const [v, iv, tag, ct] = sealed.split(".");
    const flipped = Buffer.from(ct!, "base64url");
    flipped[0] = flipped[0]! ^ 1;
    expect(() =>
      box.open([v, iv, tag, flipped.toString("base64url")].join("."), "sub-1"),
    ).toThrow();
    expect(() =>
      createSecretBox(Buffer.alloc(32, 8).toString("base64")).open(sealed, "sub-1"),
    ).toThrow();
  });

  it("uses a fresh IV every time", () => {
    expect(box.seal("same", "sub")).not.toBe(box.seal("same", "sub"));
  });

  it("opens each sealed secret once when cached, a rotated one anew, a wrong one never", () => {
    let opens = 0;
    const counting = {
      seal: box.seal,
      open: (s: string, id: string) => (opens++, box.open(s, id)),
    };
    const cached = openedSecretsCache(counting, 2);
    const first = box.seal("whsec_first", "sub-1");
    expect([cached.open(first, "sub-1"), cached.open(first, "sub-1")]).toEqual([
      "whsec_first",
      "whsec_first",
    ]);
    expect(opens).toBe(1);
    // The same sealed text under another subscription id still fails its AAD check, every time.
    expect(() => cached.open(first, "sub-2")).toThrow();
    expect(() => cached.open(first, "sub-2")).toThrow();
    const rotated = box.seal("whsec_second", "sub-1");
    expect(cached.open(rotated, "sub-1")).toBe("whsec_second");
    expect(opens).toBe(4);
    // Bounded: a third entry drops the oldest, which is opened again when next asked for.
    cached.open(box.seal("whsec_third", "sub-3"), "sub-3");
    cached.open(first, "sub-1");
    expect(opens).toBe(6);
  });
});

describe("classification and the retry schedule", () => {
  const response = (statusCode: number) => ({
    kind: "response" as const,
    statusCode,
    durationMs: 1,
    sample: "",
  });
  const error = (errorClass: "timeout" | "connection" | "tls" | "dns" | "blocked_url") => ({
    kind: "error" as const,
    errorClass,
    message: "",
    durationMs: 1,
  });

  it.each([
    [response(200), "success"],
    [response(204), "success"],
    [response(299), "success"],
    [response(301), "retryable"],
    [response(302), "retryable"],
    [response(304), "retryable"],
    [response(400), "final"],
    [response(401), "final"],
    [response(404), "final"],
    [response(410), "final"],
    [response(499), "final"],
    [response(408), "retryable"],
    [response(425), "retryable"],
    [response(429), "retryable"],
    [response(500), "retryable"],
    [response(502), "retryable"],
    [response(599), "retryable"],
    [error("timeout"), "retryable"],
    [error("connection"), "retryable"],
    [error("tls"), "retryable"],
    [error("dns"), "retryable"],
    [error("blocked_url"), "final"],
  ])("%j is %s", (result, kind) => {
    expect(classify(result).kind).toBe(kind);
  });

  it("waits the contract's +1 m, +5 m, +15 m, +1 h, +6 h by default, and the sixth failure is dead", () => {
    expect(loadDispatcherConfig({}).WEBHOOK_RETRY_SCHEDULE_MS).toEqual([...SPEC_RETRY_SCHEDULE_MS]);
    const policy = retryPolicy(SPEC_RETRY_SCHEDULE_MS);
    expect(policy.maxAttempts).toBe(6);
    const failure = classify(response(503));
    expect([1, 2, 3, 4, 5].map((n) => nextStep(failure, n, policy).retryInMs)).toEqual([
      60_000, 300_000, 900_000, 3_600_000, 21_600_000,
    ]);
    expect(nextStep(failure, 6, policy)).toEqual({
      outcome: "dead",
      failureReason: "attempts_exhausted",
      retryInMs: null,
    });
    expect(nextStep(classify(response(410)), 1, policy)).toEqual({
      outcome: "failed",
      failureReason: "http_status",
      retryInMs: null,
    });
    expect(nextStep(classify(response(200)), 6, policy)).toEqual({
      outcome: "succeeded",
      failureReason: null,
      retryInMs: null,
    });
  });

  it("gives a manual redelivery's round its own stream message id", () => {
    const m = {
      v: 1 as const,
      delivery_uuid: "d",
      subscription_uuid: "s",
      event_uuid: "e",
      round: 1,
    };
    expect(deliveryMessageId(m)).toBe("e:s");
    expect(deliveryMessageId({ ...m, round: 2 })).toBe("e:s:r2");
  });
});

describe("configuration", () => {
  const production = { ENVIRONMENT: "production", WEBHOOK_SECRET_KEY: KEY };
  const problems = (load: () => unknown) => {
    try {
      load();
    } catch (err) {
      if (err instanceof ConfigError) return err.issues.map((i) => i.key);
      throw err;
    }
    return [];
  };

  it("refuses WEBHOOK_ALLOW_LOOPBACK in production and in a sandbox others reach, and the extra CA in production, for the API and the dispatcher", () => {
    const development = {
      WEBHOOK_ALLOW_LOOPBACK: "true",
      WEBHOOK_EXTRA_CA_FILE: "/tmp/ca.pem",
    };
    for (const load of [loadConfig, loadDispatcherConfig]) {
      expect(problems(() => load({ ...production, ...development })).sort()).toEqual([
        "WEBHOOK_ALLOW_LOOPBACK",
        "WEBHOOK_EXTRA_CA_FILE",
      ]);
      // Production on a loopback base URL still refuses it.
      expect(
        problems(() =>
          load({ ...production, PUBLIC_BASE_URL: "http://localhost:8080", ...development }),
        ).sort(),
      ).toEqual(["WEBHOOK_ALLOW_LOOPBACK", "WEBHOOK_EXTRA_CA_FILE"]);
      // A sandbox installation: its public base URL is not this machine's.
      for (const base of ["https://sandbox.example.com", "http://10.0.0.5:8080", "http://[::2]/"])
        expect(
          problems(() =>
            load({ ENVIRONMENT: "sandbox", PUBLIC_BASE_URL: base, WEBHOOK_ALLOW_LOOPBACK: "true" }),
          ),
          base,
        ).toEqual(["WEBHOOK_ALLOW_LOOPBACK"]);
      // The local stack (`npm start`): the default base URL, or any on loopback.
      for (const base of [undefined, "http://127.0.0.1:20080", "http://[::1]:8080"])
        expect(
          problems(() =>
            load({
              ENVIRONMENT: "sandbox",
              ...(base && { PUBLIC_BASE_URL: base }),
              ...development,
            }),
          ),
          String(base),
        ).toEqual([]);
      expect(problems(() => load({ ENVIRONMENT: "sandbox" }))).toEqual([]);
    }
  });

  it("tells loopback URLs from others", () => {
    for (const url of [
      "http://localhost:3000/hooks",
      "https://LOCALHOST./x",
      "http://api.localhost/x",
      "http://127.0.0.1/x",
      "http://127.8.9.10:1/x",
      "https://[::1]:8443/x",
      "http://0x7f.1/x",
    ])
      expect(isLoopbackUrl(url), url).toBe(true);
    for (const url of [
      "https://hooks.example.com/x",
      "http://localhost.example.com/x",
      "http://10.0.0.1/x",
      "http://[::ffff:127.0.0.1]/x",
      "http://[::2]/x",
      "not a url",
    ])
      expect(isLoopbackUrl(url), url).toBe(false);
  });

  it("with the local stack's setting, accepts loopback URLs over http and https and nothing more", () => {
    for (const url of [
      "http://localhost:3000/hooks",
      "https://127.0.0.1:8443/x",
      "http://[::1]/x",
    ]) {
      expect(() => parseSubscriptionUrl(url, true), url).not.toThrow();
      expect(() => parseSubscriptionUrl(url, false), url).toThrow(BlockedUrlError);
    }
    for (const url of [
      "http://hooks.example.com/x",
      "http://10.0.0.1/x",
      "http://[::ffff:127.0.0.1]/x",
      "ftp://localhost/x",
      "http://user:pw@localhost/x",
    ])
      expect(() => parseSubscriptionUrl(url, true), url).toThrow(BlockedUrlError);
  });

  it("requires a 32-byte WEBHOOK_SECRET_KEY in production; the sandbox may use the development key", () => {
    expect(problems(() => loadConfig({ ENVIRONMENT: "production" }))).toEqual([
      "WEBHOOK_SECRET_KEY",
    ]);
    expect(
      problems(() =>
        loadConfig({ ...production, WEBHOOK_SECRET_KEY: Buffer.alloc(16).toString("base64") }),
      ),
    ).toEqual(["WEBHOOK_SECRET_KEY"]);
    expect(loadConfig({}).WEBHOOK_SECRET_KEY.isDevelopmentKey).toBe(true);
    expect(loadConfig(production).WEBHOOK_SECRET_KEY.isDevelopmentKey).toBe(false);
  });

  it("names the leader election from LEADER_ELECTION_NAME, webhooks-dispatcher by default, as a Lease name", () => {
    expect(loadDispatcherConfig({}).LEADER_ELECTION_NAME).toBe("webhooks-dispatcher");
    expect(
      loadDispatcherConfig({ LEADER_ELECTION_NAME: "eu-dispatcher" }).LEADER_ELECTION_NAME,
    ).toBe("eu-dispatcher");
    expect(problems(() => loadDispatcherConfig({ LEADER_ELECTION_NAME: "EU_dispatcher" }))).toEqual(
      ["LEADER_ELECTION_NAME"],
    );
  });

  it("parses the retry schedule as data and rejects nonsense", () => {
    expect(
      loadDispatcherConfig({ WEBHOOK_RETRY_SCHEDULE_MS: "100, 200,300" }).WEBHOOK_RETRY_SCHEDULE_MS,
    ).toEqual([100, 200, 300]);
    for (const bad of ["", "1,,2", "-5", "1.5", "abc", "999999999999"]) {
      expect(
        problems(() => loadDispatcherConfig({ WEBHOOK_RETRY_SCHEDULE_MS: bad })),
        bad,
      ).toEqual(["WEBHOOK_RETRY_SCHEDULE_MS"]);
    }
  });

  it("takes the signing Secrets' namespace only as a namespace name", () => {
    expect(
      loadDispatcherConfig({ OPERATOR_SECRET_NAMESPACE: "integration-webhook-secrets" })
        .OPERATOR_SECRET_NAMESPACE,
    ).toBe("integration-webhook-secrets");
    expect(loadDispatcherConfig({}).OPERATOR_SECRET_NAMESPACE).toBeUndefined();
    for (const bad of ["", "Upper", "-dash", "a/b", "x".repeat(64)])
      expect(
        problems(() => loadDispatcherConfig({ OPERATOR_SECRET_NAMESPACE: bad })),
        bad,
      ).toEqual(["OPERATOR_SECRET_NAMESPACE"]);
  });
});

describe("micro-batcher", () => {
  it("groups calls made together into one flush, keeps each caller's own result, and fails a failed batch only", async () => {
    const flushed: number[][] = [];
    const batcher = microBatcher(
      async (items: number[]) => {
        flushed.push(items);
        if (items.includes(13)) throw new Error("unlucky");
        return items.map((i) => i * 2);
      },
      { maxBatch: 3, maxInFlight: 1 },
    );
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => batcher.run(i)));
    expect(results).toEqual([2, 4, 6, 8, 10]);
    expect(flushed).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    await expect(batcher.run(13)).rejects.toThrow("unlucky");
    expect(await batcher.run(7)).toBe(14);
  });
});

describe("per-subscription in-flight caps", () => {
  const options = { limit: 2, maxWaiting: 1, maxWaitMs: 50, minDeferMs: 20, maxDeferMs: 60_000 };

  it("lets `limit` through, a few more wait briefly, and refuses the rest", async () => {
    const caps = inFlightCaps(options);
    expect(await caps.acquire("a", "m1")).toBe(true);
    expect(await caps.acquire("a", "m2")).toBe(true);
    expect(await caps.acquire("b", "m3")).toBe(true); // another subscription is unaffected
    const waiting = caps.acquire("a", "m4");
    expect(await caps.acquire("a", "m5")).toBe(false); // the waiting room is full
    caps.release("a");
    expect(await waiting).toBe(true); // handed the released slot
    expect(await caps.acquire("a", "m6")).toBe(false); // nobody released within 50 ms
  });

  it("defers briefly for a fast subscriber and long for a stalled one with a backlog, within bounds", async () => {
    const caps = inFlightCaps(options);
    // Fast: attempts take ~0 ms, so a parked message comes back after the minimum.
    await caps.acquire("fast", "f0");
    caps.release("fast");
    expect(caps.deferDelayMs("fast", "f1")).toBeLessThanOrEqual(25);
    // Stalled: attempts took ~200 ms; each further parked message waits longer, up to the maximum.
    await caps.acquire("slow", "s0");
    await new Promise((r) => setTimeout(r, 200));
    caps.release("slow");
    const delays = Array.from({ length: 200 }, (_, i) => caps.deferDelayMs("slow", `p${i}`));
    expect(delays[0]!).toBeGreaterThanOrEqual(50);
    expect(delays[199]!).toBeGreaterThan(10_000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(60_000 * 1.25);
    // A parked message that comes back is no longer counted.
    await caps.acquire("slow", "p0");
    caps.release("slow");
  });

  it("forgets idle subscriptions with what it remembered for them, but not busy ones", async () => {
    const caps = inFlightCaps({ ...options, forgetIdleAfterMs: 0 });
    await caps.acquire("gone", "g0");
    caps.release("gone");
    for (let i = 0; i < 3; i++) caps.deferDelayMs("gone", `g${i + 1}`);
    await caps.acquire("busy", "b0"); // held, never released
    expect(caps.tracked()).toEqual({ subscriptions: 2, parked: 3 });
    // The sweep runs every 1,024 acquisitions.
    for (let i = 0; i < 1_024; i++) {
      await caps.acquire("other", `o${i}`);
      caps.release("other");
    }
    expect(caps.tracked()).toEqual({ subscriptions: 2, parked: 0 }); // "busy" and "other"
  });

  it("remembers at most 100,000 parked messages over all subscriptions", () => {
    const caps = inFlightCaps(options);
    for (let i = 0; i < 120_000; i++) caps.deferDelayMs(`s${i % 50}`, `m${i}`);
    expect(caps.tracked().parked).toBe(100_000);
  });
});
