import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEnv } from "@svc/testing";
import { AckPolicy, jetstream } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  deliveriesStreamConfig,
  drainNats,
  ensureConsumer,
  ensureStream,
  names,
  publish,
  startConsumer,
} from "../src/index.ts";
import type { Decision, Delivery, RunningConsumer } from "../src/index.ts";
import {
  connectForTest,
  deleteNamespaceStreams,
  recordingLogger,
  sleep,
  testNamespace,
  waitFor,
} from "./support.ts";

const ns = testNamespace();
const n = names(ns);
let nc: NatsConnection;
let jsm: JetStreamManager;
let js: JetStreamClient;
const running: RunningConsumer[] = [];

beforeAll(async () => {
  ({ nc, jsm } = await connectForTest(testEnv.TEST_NATS_URL, "messaging-consumer-test"));
  js = jetstream(nc);
  // A work queue, so "acked or terminated" is visible as "gone from the stream".
  await ensureStream(jsm, deliveriesStreamConfig(n));
});
afterAll(async () => {
  await Promise.all(running.map((c) => c.stop()));
  await deleteNamespaceStreams(jsm, ns);
  await drainNats(nc);
});

/** One consumer per test, on its own subject (work-queue consumers may not overlap). */
async function consumerFor(caseName: string, ackWaitMs = 1_000) {
  const subject = n.deliverySubject(caseName);
  await ensureConsumer(jsm, n.deliveriesStream, {
    durable_name: caseName,
    filter_subject: subject,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ackWaitMs),
    max_deliver: 6,
  });
  const left = async () =>
    (await jsm.streams.info(n.deliveriesStream, { subjects_filter: subject })).state.subjects?.[
      subject
    ] ?? 0;
  const info = () => jsm.consumers.info(n.deliveriesStream, caseName);
  return { subject, left, info };
}

async function start<T>(
  caseName: string,
  handler: (d: Delivery<T>) => Promise<Decision> | Decision,
  extra: {
    concurrency?: number;
    errorDelayMs?: number;
    errorMaxDelayMs?: number;
    parse?: (d: unknown) => T;
  } = {},
) {
  const logger = recordingLogger();
  const consumer = await startConsumer<T>({
    js,
    stream: n.deliveriesStream,
    consumer: caseName,
    concurrency: extra.concurrency ?? 2,
    handler,
    logger,
    ...extra,
  });
  running.push(consumer);
  return { consumer, logger };
}

describe("startConsumer", () => {
  it("acks, retries after the nak delay with a growing delivery count, and terminates for good", async () => {
    const { subject, left, info } = await consumerFor("decisions");
    const seen: Array<{ kind: string; count: number; at: number }> = [];
    await start<{ kind: string }>("decisions", ({ data, deliveryCount }) => {
      seen.push({ kind: data.kind, count: deliveryCount, at: Date.now() });
      if (data.kind === "retry" && deliveryCount === 1) return { action: "nak", delayMs: 400 };
      return data.kind === "term" ? { action: "term" } : { action: "ack" };
    });
    for (const kind of ["ack", "retry", "term"]) await publish(js, subject, { kind });
    await waitFor("the retry's second delivery", () =>
      seen.some((s) => s.kind === "retry" && s.count === 2),
    );
    const retries = seen.filter((s) => s.kind === "retry");
    expect(retries[1]!.at - retries[0]!.at).toBeGreaterThanOrEqual(380);
    // Past the 1 s ack wait: a terminated message would have come back by now if term were ignored.
    await sleep(1_300);
    expect(seen.map((s) => `${s.kind}#${s.count}`).sort()).toEqual([
      "ack#1",
      "retry#1",
      "retry#2",
      "term#1",
    ]);
    expect(await left()).toBe(0);
    expect(await info()).toMatchObject({ num_ack_pending: 0, num_pending: 0 });
  });

  it("naks a handler that throws after a short delay, warns once, and delivers it again", async () => {
    const { subject, left } = await consumerFor("throws");
    const counts: number[] = [];
    const { logger } = await start<unknown>(
      "throws",
      ({ deliveryCount }) => {
        counts.push(deliveryCount);
        if (deliveryCount === 1) throw new Error("database down");
        return { action: "ack" };
      },
      { errorDelayMs: 200 },
    );
    await publish(js, subject, { id: 1 });
    await waitFor("the second delivery", () => counts.length === 2);
    expect(counts).toEqual([1, 2]);
    await waitFor("the ack", async () => (await left()) === 0);
    expect(logger.entries.map((e) => [e.level, e.msg])).toEqual([
      ["warn", "message handler failing; backing off"],
      ["info", "message handler recovered"],
    ]);
  });

  it("during an outage pauses the whole consumer instead of running every pending message, then drains them all", async () => {
    const { subject, left } = await consumerFor("outage", 5_000);
    let down = true;
    let calls = 0;
    let callsWhileDown = 0;
    const acked = new Set<number>();
    const { logger } = await start<{ i: number }>(
      "outage",
      ({ data }) => {
        calls++;
        if (down) {
          callsWhileDown++;
          throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
        }
        acked.add(data.i);
        return { action: "ack" };
      },
      { concurrency: 4, errorDelayMs: 50, errorMaxDelayMs: 400 },
    );
    await Promise.all(Array.from({ length: 300 }, (_, i) => publish(js, subject, { i })));
    await sleep(2_000);
    down = false;
    await waitFor("all 300 acked", async () => acked.size === 300 && (await left()) === 0, 15_000);
    // A fixed 50 ms retry with no pause would have run ~4 handlers per 50 ms: ~160 in 2 s. Probes
    // one at a time, 25–50, 50–100, 100–200, then 200–400 ms apart, plus the first four: about 12.
    expect(callsWhileDown).toBeLessThan(30);
    expect(calls - callsWhileDown).toBeGreaterThanOrEqual(300);
    const lines = logger.entries.map((e) => e.msg);
    expect(lines).toEqual(["message handler failing; backing off", "message handler recovered"]);
    expect(logger.entries[1]!.obj).toMatchObject({ failures: callsWhileDown });
  });

  it("stop() does not wait out a backoff pause", async () => {
    const { subject } = await consumerFor("stop-paused");
    let calls = 0;
    const { consumer } = await start<unknown>(
      "stop-paused",
      () => {
        calls++;
        throw new Error("database down");
      },
      { concurrency: 1, errorDelayMs: 20_000, errorMaxDelayMs: 20_000 },
    );
    await publish(js, subject, { i: 1 });
    await publish(js, subject, { i: 2 });
    await waitFor("the first failure", () => calls >= 1);
    const started = Date.now();
    await consumer.stop();
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("terminates a message that is not JSON or fails validation, without calling the handler", async () => {
    const { subject, left, info } = await consumerFor("poison");
    const handled: unknown[] = [];
    const parse = (d: unknown) => {
      if (typeof (d as { id?: unknown }).id !== "number") throw new Error("id must be a number");
      return d as { id: number };
    };
    const { logger } = await start(
      "poison",
      ({ data }) => (handled.push(data), { action: "ack" }),
      { parse },
    );
    await js.publish(subject, "{not json");
    await publish(js, subject, { id: "x" });
    await publish(js, subject, { id: 7 });
    await waitFor("all three settled", async () => (await left()) === 0);
    expect(handled).toEqual([{ id: 7 }]);
    expect(
      logger.entries.filter((e) => e.msg === "message payload rejected; terminated"),
    ).toHaveLength(2);
    expect((await info()).num_redelivered).toBe(0);
  });

  it("never runs more handlers at once than its concurrency", async () => {
    const { subject, left } = await consumerFor("bounded");
    let current = 0;
    let max = 0;
    let done = 0;
    await start<unknown>(
      "bounded",
      async () => {
        max = Math.max(max, ++current);
        await sleep(10 + Math.random() * 30);
        current--;
        done++;
        return { action: "ack" };
      },
      { concurrency: 3 },
    );
    await Promise.all(Array.from({ length: 30 }, (_, i) => publish(js, subject, { i })));
    await waitFor("all 30 handled", () => done === 30);
    expect(max).toBe(3);
    await waitFor("all acked", async () => (await left()) === 0);
  });

  it("stop() waits for running handlers, then takes no more messages", async () => {
    const { subject, left } = await consumerFor("stopping");
    let started = 0;
    let finished = 0;
    const { consumer } = await start<unknown>(
      "stopping",
      async () => {
        started++;
        await sleep(400);
        finished++;
        return { action: "ack" };
      },
      { concurrency: 1 },
    );
    await publish(js, subject, { i: 1 });
    await waitFor("the handler to start", () => started === 1);
    await consumer.stop();
    expect(finished).toBe(1);
    expect(consumer.inFlight()).toBe(0);
    await publish(js, subject, { i: 2 });
    await sleep(300);
    expect(started).toBe(1);
    expect(await left()).toBe(1);
  });

  it("keeps a slow handler's message from being redelivered by marking it in progress", async () => {
    const { subject, left, info } = await consumerFor("slow", 600);
    const counts: number[] = [];
    await start<unknown>("slow", async ({ deliveryCount }) => {
      counts.push(deliveryCount);
      await sleep(1_500);
      return { action: "ack" };
    });
    await publish(js, subject, { i: 1 });
    await waitFor("the ack", async () => (await left()) === 0, 4_000);
    expect(counts).toEqual([1]);
    expect((await info()).num_redelivered).toBe(0);
  });

  it("never runs two copies of one message at once: a redelivery waits for the copy still running", async () => {
    // Four messages, two slots, a 600 ms ack wait: the two messages the client buffered behind the
    // slow first pair run out their ack wait there and are redelivered while their first copies
    // run.
    const { subject, left } = await consumerFor("copies", 600);
    const runningNow = new Map<number, number>();
    let mostAtOnce = 0;
    const calls: Array<{ i: number; deliveryCount: number }> = [];
    await start<{ i: number }>("copies", async ({ data, deliveryCount }) => {
      calls.push({ i: data.i, deliveryCount });
      const now = (runningNow.get(data.i) ?? 0) + 1;
      runningNow.set(data.i, now);
      mostAtOnce = Math.max(mostAtOnce, now);
      await sleep(1_500);
      runningNow.set(data.i, now - 1);
      return { action: "ack" };
    });
    for (let i = 0; i < 4; i++) await publish(js, subject, { i });
    await waitFor("all acked", async () => (await left()) === 0, 15_000);
    await sleep(1_000);
    expect(calls.some((c) => c.deliveryCount > 1)).toBe(true);
    expect(mostAtOnce).toBe(1);
  }, 30_000);
});
