import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCa, unusedPort, type TestCa } from "@svc/testing";
import { spawnDispatcher } from "./support/dispatcher-process.ts";
import { startReceiver, type Receiver } from "./support/receiver.ts";
import { fakeResolver, sleep, startHarness, waitFor, type Harness } from "./support/harness.ts";

/**
 * Automatic disabling of an endpoint that keeps failing, with a compressed clock: the real
 * dispatcher process (WEBHOOK_AUTO_DISABLE_AFTER_MS=3000, checked every 200 ms) against real
 * PostgreSQL, NATS and an HTTPS receiver; the API in this process.
 */
const AFTER_MS = 3_000;
const OWNER = "client-auto-disable";
let ca: TestCa;
let receiver: Receiver;
let h: Harness;
let dispatcher: ReturnType<typeof spawnDispatcher>;
let metricsUrl: string;
const logLines: string[] = [];

beforeAll(async () => {
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  h = await startHarness({ resolver: fakeResolver(), caFile: ca.caFile });
  const internalPort = await unusedPort();
  metricsUrl = `http://127.0.0.1:${internalPort}/metrics`;
  dispatcher = spawnDispatcher({
    ...h.env,
    LOG_LEVEL: "info",
    INTERNAL_PORT: String(internalPort),
    WEBHOOK_RETRY_SCHEDULE_MS: "400,400,400,400,400",
    WEBHOOK_ATTEMPT_TIMEOUT_MS: "1500",
    WEBHOOK_DELIVERY_ACK_WAIT_MS: "3000",
    WEBHOOK_REQUEUE_SWEEP_MS: "500",
    WEBHOOK_AUTO_DISABLE_AFTER_MS: String(AFTER_MS),
    WEBHOOK_AUTO_DISABLE_CHECK_MS: "200",
  });
  let partial = "";
  dispatcher.stdout!.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop() ?? "";
    logLines.push(...lines);
  });
  await waitFor(
    "the dispatcher to be ready",
    async () =>
      (await fetch(`http://127.0.0.1:${internalPort}/readyz`).catch(() => undefined))?.status ===
        200 || dispatcher.exitCode !== null,
    60_000,
    100,
  );
  expect(dispatcher.exitCode, dispatcher.output()).toBeNull();
}, 90_000);
afterAll(async () => {
  if (dispatcher && dispatcher.exitCode === null) {
    dispatcher.kill("SIGTERM");
    await once(dispatcher, "exit");
  }
  await h?.close();
  await receiver?.close();
  ca?.dispose();
});

let paths = 0;
/** Every subscription the tests made, so one test can switch off the others' failing streaks. */
const created: string[] = [];

async function subscribe(answer: () => number): Promise<{ id: string; path: string }> {
  const path = `/auto-disable/${++paths}`;
  receiver.setBehaviour(path, () => ({ status: answer() }));
  const res = await h.api(OWNER, "POST", "/v1/webhooks", {
    url: receiver.url(path),
    event_types: ["vacancy.updated"],
  });
  expect(res.status).toBe(201);
  receiver.setSecrets(path, [res.body.data.secret]);
  created.push(res.body.data.webhook_uuid as string);
  return { id: res.body.data.webhook_uuid as string, path };
}

/** Sends each subscription a test ping every 300 ms until stopped (a disabled one answers 409). */
function keepPinging(ids: string[]): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      await Promise.all(ids.map((id) => h.api(OWNER, "POST", `/v1/webhooks/${id}/test`)));
      await sleep(300);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}

const subscription = async (id: string) =>
  (await h.api(OWNER, "GET", `/v1/webhooks/${id}`)).body.data;

async function disabledAgain(id: string): Promise<{ disabled_at: string }> {
  return waitFor(
    `${id} to be disabled automatically`,
    async () => {
      const s = await subscription(id);
      return s.enabled === false && s.disabled_reason === "endpoint_failing" ? s : undefined;
    },
    40_000,
    50,
  );
}

async function firstAttemptAt(id: string, after = new Date(0)): Promise<number> {
  const { rows } = await h.pool.query<{ at: Date }>(
    `SELECT min(a.attempted_at) AS at FROM webhooks.delivery_attempts a
     JOIN webhooks.deliveries d ON d.id = a.delivery_id WHERE d.subscription_id = $1 AND a.attempted_at > $2`,
    [id, after],
  );
  return rows[0]!.at.getTime();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const deliveries = async (id: string): Promise<any[]> =>
  (await h.api(OWNER, "GET", `/v1/webhooks/${id}/deliveries?per_page=100`)).body.data;

async function autoDisabledTotal(): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = /^webhooks_subscriptions_auto_disabled_total(?:\{[^}]*\})? (\d+)/m.exec(text);
  return line ? Number(line[1]) : 0;
}

describe("a subscription whose endpoint keeps failing", () => {
  it("is disabled once every attempt has failed for the period, with reason, time, log line and metric; one with a success in the period, or a success after its last failure, is not", async () => {
    let flakyPosts = 0;
    const failing = await subscribe(() => 503);
    // Fails three POSTs in four: never a success-free stretch as long as the period.
    const flaky = await subscribe(() => (++flakyPosts % 4 === 0 ? 204 : 503));
    // Fails once, then succeeds, then gets nothing more: its failure was followed by a success.
    let recoveredPosts = 0;
    const recovered = await subscribe(() => (++recoveredPosts === 1 ? 503 : 204));
    const ping = await h.api(OWNER, "POST", `/v1/webhooks/${recovered.id}/test`);
    expect(ping.status).toBe(202);
    const pinging = keepPinging([failing.id, flaky.id]);
    try {
      const disabled = await disabledAgain(failing.id);
      const failingSince = await firstAttemptAt(failing.id);
      const waited = Date.parse(disabled.disabled_at) - failingSince;
      expect(
        waited,
        "disabled no earlier than the period after the first failure",
      ).toBeGreaterThanOrEqual(AFTER_MS);
      expect(waited, "and soon after it (checked every 200 ms)").toBeLessThan(AFTER_MS + 5_000);
      expect(disabled).toMatchObject({ enabled: false, disabled_reason: "endpoint_failing" });
      expect(receiver.received(failing.path).length).toBeGreaterThan(3);
      // The flaky endpoint fails most attempts for well over the period, and stays enabled.
      const flakySince = await firstAttemptAt(flaky.id);
      await waitFor("the period to pass for the flaky endpoint too", () =>
        Date.now() - flakySince > AFTER_MS + 1_500 ? true : undefined,
      );
      expect(flakyPosts).toBeGreaterThan(8);
      expect(await subscription(flaky.id)).toMatchObject({
        enabled: true,
        disabled_reason: null,
        disabled_at: null,
      });
      expect(recoveredPosts).toBe(2);
      expect(Date.now() - (await firstAttemptAt(recovered.id))).toBeGreaterThan(AFTER_MS + 1_000);
      expect((await subscription(recovered.id)).enabled).toBe(true);
    } finally {
      await pinging.stop();
    }

    const line = logLines
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.webhook_uuid === failing.id && l.disabled_reason === "endpoint_failing");
    expect(line, "the dispatcher's log line").toBeDefined();
    expect(line).toMatchObject({ client_id: OWNER, level: "warn" });
    expect(Date.parse(String(line!.failing_since))).toBe(await firstAttemptAt(failing.id));
    expect(JSON.stringify(line)).not.toContain(receiver.url(failing.path));
    expect(await autoDisabledTotal()).toBe(1);

    // Nothing pending is lost: what was still being retried ends failed (subscription_disabled).
    const settled = await waitFor(
      "the disabled subscription's deliveries to settle",
      async () => {
        const list = await deliveries(failing.id);
        return list.every((d) => d.status !== "pending") ? list : undefined;
      },
      20_000,
      100,
    );
    const ends = new Set(settled.map((d) => `${d.status}/${d.failure_reason}`));
    expect(ends).toContain("failed/subscription_disabled");
    // Older pings may have used up their attempts first; nothing else ends them.
    for (const end of ends)
      expect(["dead/attempts_exhausted", "failed/subscription_disabled"]).toContain(end);
    const recoverWhileDisabled = await h.api(OWNER, "POST", `/v1/webhooks/${failing.id}/recover`, {
      since: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(recoverWhileDisabled.status).toBe(409);
  }, 90_000);

  it("enabling it again restarts the clock; once the endpoint answers, recovery redelivers what failed", async () => {
    const failing = await subscribe(() => 503);
    const start = new Date();
    let pinging = keepPinging([failing.id]);
    try {
      await disabledAgain(failing.id);
    } finally {
      await pinging.stop();
    }
    // The earlier tests' subscriptions may still be in a failing streak; disabled on request, the
    // check passes them over, so the metric below counts this subscription alone.
    for (const id of created.filter((c) => c !== failing.id))
      await h.api(OWNER, "PATCH", `/v1/webhooks/${id}`, { enabled: false });
    const before = await autoDisabledTotal();
    // No attempt still under way: one that began before enabling would start the new streak early.
    await waitFor(
      "the deliveries to settle",
      async () => (await deliveries(failing.id)).every((d) => d.status !== "pending"),
      20_000,
      100,
    );

    // Enabled while the endpoint still fails: the old streak is forgotten, a new one must last
    // the whole period (without the reset the next check, 200 ms on, would disable it).
    const enabled = await h.api(OWNER, "PATCH", `/v1/webhooks/${failing.id}`, { enabled: true });
    expect(enabled.body.data).toMatchObject({
      enabled: true,
      disabled_reason: null,
      disabled_at: null,
    });
    const enabledAt = new Date();
    pinging = keepPinging([failing.id]);
    try {
      const again = await disabledAgain(failing.id);
      expect(
        Date.parse(again.disabled_at) - enabledAt.getTime(),
        "disabled again no earlier than the period after enabling",
      ).toBeGreaterThanOrEqual(AFTER_MS);
      const newStreak = await firstAttemptAt(failing.id, enabledAt);
      expect(Date.parse(again.disabled_at) - newStreak).toBeGreaterThanOrEqual(AFTER_MS);
    } finally {
      await pinging.stop();
    }
    expect(await autoDisabledTotal()).toBe(before + 1);

    // The endpoint is fixed: enable, then recover everything since the outage began.
    receiver.setBehaviour(failing.path, () => ({ status: 204 }));
    await waitFor(
      "the deliveries to settle",
      async () => (await deliveries(failing.id)).every((d) => d.status !== "pending"),
      20_000,
      100,
    );
    await h.api(OWNER, "PATCH", `/v1/webhooks/${failing.id}`, { enabled: true });
    const unfinished = (await deliveries(failing.id)).filter((d) => d.status !== "succeeded");
    expect(unfinished.length).toBeGreaterThan(0);
    const recovered = await h.api(OWNER, "POST", `/v1/webhooks/${failing.id}/recover`, {
      since: start.toISOString(),
    });
    expect(recovered.status).toBe(202);
    expect(recovered.body.data.queued).toBeGreaterThanOrEqual(unfinished.length);
    await waitFor(
      "every recovered delivery to succeed",
      async () => (await deliveries(failing.id)).every((d) => d.status === "succeeded"),
      30_000,
      100,
    );
    // Exactly the recovered ones went round again; each succeeded.
    const rounds = (await deliveries(failing.id)).map((d) => d.round as number);
    expect(rounds.filter((r) => r === 2)).toHaveLength(recovered.body.data.queued);
    expect(rounds.every((r) => r <= 2)).toBe(true);
    // A success ends the failing streak.
    const { rows } = await h.pool.query(
      "SELECT first_failure_at, last_success_at FROM webhooks.subscriptions WHERE id = $1",
      [failing.id],
    );
    expect(rows[0].first_failure_at).toBeNull();
    expect(rows[0].last_success_at).not.toBeNull();
    expect((await subscription(failing.id)).enabled).toBe(true);
  }, 120_000);
});
