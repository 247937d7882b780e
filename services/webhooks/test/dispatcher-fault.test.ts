import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEvent, type EventPayload } from "@svc/events";
import {
  ensureStream,
  eventsStreamConfig,
  jetstream,
  jetstreamManager,
  publish,
} from "@svc/messaging";
import { spawnDispatcher } from "./support/dispatcher-process.ts";
import { killHard, startPrivateNats, type PrivateNats } from "./support/private-nats.ts";
import { startReceiver, type Receiver } from "./support/receiver.ts";
import { createTestCa, type TestCa } from "@svc/testing";
import {
  allDeliveriesSucceeded,
  fakeResolver,
  PUBLIC_BASE_URL,
  sleep,
  startHarness,
  waitFor,
  type Harness,
} from "./support/harness.ts";

/**
 * At-least-once under faults: the real dispatcher process is SIGKILLed again and again while it
 * works through a burst, and the (private) nats-server is SIGKILLed and restarted once. Every
 * expected delivery must reach the receiver at least once; duplicates are counted and printed.
 */
const EVENTS = 1_500;
const SUBSCRIPTIONS = 2;
const EXPECTED = EVENTS * SUBSCRIPTIONS;

let nats: PrivateNats;
let ca: TestCa;
let receiver: Receiver;
let h: Harness;
const children: Array<ReturnType<typeof spawnDispatcher>> = [];
/** Every dispatcher this test starts, so none outlives it whatever happens. */
const spawnTracked = (env: Record<string, string>) => {
  const child = spawnDispatcher(env);
  children.push(child);
  return child;
};

beforeAll(async () => {
  nats = await startPrivateNats();
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  h = await startHarness({ resolver: fakeResolver(), caFile: ca.caFile, natsUrl: nats.url });
  // The producers' side owns the events stream as much as the dispatcher does; make it exist first.
  await ensureStream(await jetstreamManager(h.nc), eventsStreamConfig(h.n));
});
afterAll(async () => {
  await Promise.all(children.map((c) => killHard(c)));
  await h?.close();
  await receiver?.close();
  await nats?.dispose();
  ca?.dispose();
});

// One event in twenty fails its first attempt with 503, so retries (nak with delay) are in flight
// too.
const flaky = (eventId: string) => createHash("sha256").update(eventId).digest()[0]! < 13;

async function publishBurst(count: number): Promise<EventPayload[]> {
  const js = jetstream(h.nc);
  const events = Array.from({ length: count }, (_, i) =>
    buildEvent({ type: "vacancy.updated", entityId: `v${i}`, publicBaseUrl: PUBLIC_BASE_URL }),
  );
  for (let i = 0; i < events.length; i += 200) {
    await Promise.all(
      events
        .slice(i, i + 200)
        .map((e) => publish(js, h.n.eventSubject(e.event_type), e, { msgId: e.event_uuid })),
    );
  }
  return events;
}

describe("the dispatcher under SIGKILL and a nats-server restart", () => {
  it("delivers every event to every subscription at least once", async () => {
    const paths: string[] = [];
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const path = `/fault/${i}`;
      receiver.setBehaviour(path, (n, eventId) => ({
        status: n === 1 && flaky(eventId) ? 503 : 200,
      }));
      const res = await h.api("client-fault", "POST", "/v1/webhooks", {
        url: receiver.url(path),
        event_types: ["vacancy.updated"],
      });
      expect(res.status).toBe(201);
      receiver.setSecrets(path, [res.body.data.secret]);
      paths.push(path);
    }
    const env = {
      ...h.env,
      LOG_LEVEL: "warn",
      INTERNAL_PORT: "0",
      WEBHOOK_RETRY_SCHEDULE_MS: "100,200,300,400,500",
      WEBHOOK_ATTEMPT_TIMEOUT_MS: "1500",
      WEBHOOK_DELIVERY_ACK_WAIT_MS: "2000",
      WEBHOOK_FANOUT_ACK_WAIT_MS: "2000",
      WEBHOOK_REQUEUE_SWEEP_MS: "1000",
      WEBHOOK_DELIVERY_CONCURRENCY: "64",
      WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: "32",
    };
    const delivered = () =>
      new Set(
        receiver
          .received()
          .filter((r) => paths.includes(r.path))
          .map((r) => `${r.path}|${r.eventId}`),
      ).size;

    const started = Date.now();
    let child = spawnTracked(env);
    const events = await publishBurst(EVENTS / 2);
    let kills = 0;
    let natsRestarted = false;
    const log: string[] = [];
    // Kill only once the new dispatcher is visibly at work (its start-up takes a second or two),
    // then at a random moment during its next stretch of deliveries.
    const killMidBurst = async () => {
      const before = delivered();
      await waitFor(
        "the dispatcher to make progress",
        () => delivered() >= Math.min(EXPECTED, before + 60) || child.exitCode !== null,
        20_000,
        20,
      );
      await sleep(Math.random() * 250);
      if (delivered() >= EXPECTED) return false;
      await killHard(child);
      kills++;
      log.push(
        `SIGKILL ${kills} at ${Date.now() - started} ms: ${delivered()}/${EXPECTED} delivered`,
      );
      return true;
    };
    while (kills < 6 && (await killMidBurst())) {
      if (kills === 2) events.push(...(await publishBurst(EVENTS / 2)));
      if (kills === 3) {
        // NATS dies under a running dispatcher, which must ride out the outage.
        child = spawnTracked(env);
        await killMidBurst();
        await nats.kill();
        log.push(`nats-server SIGKILL at ${Date.now() - started} ms`);
        child = spawnTracked(env); // starts while NATS is down: exits, and is started again below
        await sleep(800);
        await nats.restart();
        natsRestarted = true;
        log.push(`nats-server restarted at ${Date.now() - started} ms`);
        continue;
      }
      child = spawnTracked(env);
    }
    await waitFor(
      `all ${EXPECTED} deliveries (last dispatcher output: ${child.output().slice(-2_000)})`,
      () => {
        // E.g. started while NATS was still down.
        if (child.exitCode !== null) child = spawnTracked(env);
        return delivered() >= EXPECTED;
      },
      45_000,
      100,
    );
    const elapsed = Date.now() - started;

    const counts = new Map<string, number>();
    for (const r of receiver.received())
      if (paths.includes(r.path))
        counts.set(`${r.path}|${r.eventId}`, (counts.get(`${r.path}|${r.eventId}`) ?? 0) + 1);
    const expected = events.flatMap((e) => paths.map((p) => `${p}|${e.event_uuid}`));
    const missing = expected.filter((k) => !counts.has(k));
    const posts = [...counts.values()].reduce((a, b) => a + b, 0);
    const retriedByDesign = events.filter((e) => flaky(e.event_uuid)).length * SUBSCRIPTIONS;
    const duplicates = posts - expected.length - retriedByDesign;
    const invalid = receiver
      .received()
      .filter(
        (r) => paths.includes(r.path) && (r.verifiedWith.length === 0 || !r.timestampOk),
      ).length;
    console.info(
      [
        ...log,
        `fault test: ${EXPECTED} expected deliveries, ${kills} dispatcher SIGKILLs, nats-server SIGKILLed and restarted once; all delivered after ${elapsed} ms`,
        `POSTs received: ${posts} = ${expected.length} first deliveries + ${retriedByDesign} planned 503 retries + ${duplicates} duplicates (at-least-once)`,
      ].join("\n"),
    );

    expect(natsRestarted).toBe(true);
    expect(kills).toBeGreaterThanOrEqual(4);
    expect(missing).toEqual([]);
    expect(invalid).toBe(0);
    // The records catch up too: every delivery succeeded, none left pending or dead.
    await waitFor(
      "every delivery record to be succeeded",
      () => allDeliveriesSucceeded(h.pool, EXPECTED),
      15_000,
      200,
    );

    // And the last dispatcher shuts down gracefully on SIGTERM.
    const exited = new Promise<number | null>((resolve) =>
      child.once("exit", (code) => resolve(code)),
    );
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 90_000);
});
