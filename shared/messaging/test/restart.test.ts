import { afterAll, describe, expect, it } from "vitest";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  connectNats,
  deliveriesConsumerConfig,
  deliveriesStreamConfig,
  drainNats,
  ensureConsumer,
  ensureStream,
  names,
  publish,
  startConsumer,
} from "../src/index.ts";
import type { RunningConsumer } from "../src/index.ts";
import { startPrivateNatsServer } from "@svc/testing";
import type { PrivateNatsServer } from "@svc/testing";
import { recordingLogger, sleep, testNamespace, waitFor } from "./support.ts";

const n = names(testNamespace());
let server: PrivateNatsServer | undefined;
let nc: NatsConnection | undefined;
let consumer: RunningConsumer | undefined;

afterAll(async () => {
  await consumer?.stop();
  if (nc) await drainNats(nc, { timeoutMs: 2_000 });
  await server?.dispose();
});

describe("a consumer across a nats-server crash", () => {
  it("resumes after kill -9 and restart, and every message is handled and acked at least once", async () => {
    server = await startPrivateNatsServer();
    const logger = recordingLogger();
    nc = await connectNats({
      servers: server.url,
      name: "messaging-restart-test",
      logger,
      reconnectTimeWaitMs: 100,
    });
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    await ensureStream(jsm, deliveriesStreamConfig(n));
    await ensureConsumer(
      jsm,
      n.deliveriesStream,
      deliveriesConsumerConfig(n, { ackWaitMs: 2_000 }),
    );

    const handled = new Map<number, number>();
    consumer = await startConsumer<{ i: number }>({
      js,
      stream: n.deliveriesStream,
      consumer: n.consumers.deliveries,
      concurrency: 4,
      logger,
      handler: async ({ data }) => {
        await sleep(5);
        handled.set(data.i, (handled.get(data.i) ?? 0) + 1);
        return { action: "ack" };
      },
    });
    const publishRange = (from: number, to: number) =>
      Promise.all(
        Array.from({ length: to - from }, (_, k) =>
          publish(js, n.deliverySubject("sub-1"), { i: from + k }, { msgId: `evt-${from + k}` }),
        ),
      );

    await publishRange(0, 200);
    await waitFor("the consumer to get going", () => handled.size >= 30, 15_000);
    await server.kill();
    const handledAtCrash = handled.size;
    expect(handledAtCrash).toBeLessThan(200); // really mid-stream
    await server.restart();
    const restartedAt = Date.now();
    await waitFor(
      "the reconnect",
      () => logger.entries.some((e) => e.msg === "nats reconnected"),
      15_000,
    );
    await publishRange(200, 300);

    await waitFor("every message handled", () => handled.size === 300, 15_000);
    const resumedAfterMs = Date.now() - restartedAt;
    // The consumer's counters, not the stream's message count: work-queue deletions from just
    // before a SIGKILL may not be on disk, so acked messages can linger in the stream.
    await waitFor(
      "nothing pending or unacked",
      async () => {
        const info = await jsm.consumers.info(n.deliveriesStream, n.consumers.deliveries);
        return info.num_pending === 0 && info.num_ack_pending === 0;
      },
      15_000,
    );
    expect([...handled.keys()].sort((a, b) => a - b)).toEqual(
      Array.from({ length: 300 }, (_, i) => i),
    );
    // Acks (and work-queue deletions) from the last second or so before a SIGKILL are not yet on
    // disk, so those messages come back; handlers must tolerate repeats (the webhook-id lets
    // receivers dedupe). docs/decisions/jetstream-delivery-queue.md.
    const handledTwice = [...handled.values()].filter((c) => c > 1).length;
    console.info(
      `restart: ${handledAtCrash} handled before kill -9, all 300 done ${resumedAfterMs} ms after restart, ${handledTwice} handled twice`,
    );
    expect(logger.entries).toContainEqual(
      expect.objectContaining({ level: "warn", msg: "nats disconnected; reconnecting" }),
    );
  });
});
