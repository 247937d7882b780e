import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEnv } from "@svc/testing";
import { nanos } from "@nats-io/transport-node";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  deliveriesConsumerConfig,
  deliveriesStreamConfig,
  drainNats,
  ensureConsumer,
  ensureStream,
  eventsFanoutConsumerConfig,
  eventsStreamConfig,
  names,
} from "../src/index.ts";
import { connectForTest, deleteNamespaceStreams, testNamespace } from "./support.ts";

const ns = testNamespace();
const n = names(ns);
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  ({ nc, jsm } = await connectForTest(testEnv.TEST_NATS_URL, "messaging-ensure-test"));
});
afterAll(async () => {
  await deleteNamespaceStreams(jsm, ns);
  await drainNats(nc);
});

describe("ensureStream", () => {
  it("creates the events stream, then leaves it alone when asked again with the same settings", async () => {
    const first = await ensureStream(jsm, eventsStreamConfig(n));
    expect(first.outcome).toBe("created");
    const again = await ensureStream(jsm, eventsStreamConfig(n));
    expect(again.outcome).toBe("unchanged");
    expect(again.info.config).toMatchObject({
      subjects: [`${ns}.events.>`],
      storage: "file",
      retention: "limits",
      duplicate_window: nanos(2 * 3_600_000),
      max_age: nanos(7 * 86_400_000),
    });
  });

  it("updates a stream whose settings changed", async () => {
    const config = { ...eventsStreamConfig(n), max_age: nanos(3 * 86_400_000) };
    const result = await ensureStream(jsm, config);
    expect(result.outcome).toBe("updated");
    expect((await jsm.streams.info(n.eventsStream)).config.max_age).toBe(nanos(3 * 86_400_000));
    expect((await ensureStream(jsm, config)).outcome).toBe("unchanged");
  });

  it("survives replicas racing to create the same stream", async () => {
    const results = await Promise.all(
      [1, 2, 3].map(() => ensureStream(jsm, deliveriesStreamConfig(n))),
    );
    // The server treats an identical create as a no-op, so every racer may report "created".
    for (const r of results)
      expect(r.info.config).toMatchObject({
        retention: "workqueue",
        max_age: nanos(8 * 86_400_000),
      });
  });

  it("survives replicas with different settings racing: the loser updates", async () => {
    const base = { name: `${n.eventsStream}_RACE`, subjects: [`${ns}.race.>`] };
    const configs = [1, 2].map((days) => ({ ...base, max_age: nanos(days * 86_400_000) }));
    const results = await Promise.all(configs.map((c) => ensureStream(jsm, c)));
    expect(results.map((r) => r.outcome).sort()).toEqual(["created", "updated"]);
  });

  it("propagates a change the server refuses (retention is immutable)", async () => {
    await expect(
      ensureStream(jsm, {
        ...deliveriesStreamConfig(n),
        retention: eventsStreamConfig(n).retention,
      }),
    ).rejects.toThrow();
  });
});

describe("ensureConsumer", () => {
  it("creates the dispatcher's consumer with the 2.9-safe settings, then finds it unchanged", async () => {
    await ensureStream(jsm, deliveriesStreamConfig(n));
    const created = await ensureConsumer(jsm, n.deliveriesStream, deliveriesConsumerConfig(n));
    expect(created.outcome).toBe("created");
    expect(created.info.config).toMatchObject({
      ack_policy: "explicit",
      max_deliver: 6,
      max_ack_pending: 200_000,
      ack_wait: nanos(90_000),
    });
    expect(created.info.config.backoff ?? []).toEqual([]);
    expect(
      (await ensureConsumer(jsm, n.deliveriesStream, deliveriesConsumerConfig(n))).outcome,
    ).toBe("unchanged");
  });

  it("updates a consumer whose settings changed", async () => {
    const changed = deliveriesConsumerConfig(n, { ackWaitMs: 45_000, maxAckPending: 5_000 });
    expect((await ensureConsumer(jsm, n.deliveriesStream, changed)).outcome).toBe("updated");
    const info = await jsm.consumers.info(n.deliveriesStream, n.consumers.deliveries);
    expect(info.config).toMatchObject({
      ack_wait: nanos(45_000),
      max_ack_pending: 5_000,
      max_deliver: 6,
    });
  });

  it("creates the fan-out consumer on the events stream with unlimited deliveries", async () => {
    await ensureStream(jsm, eventsStreamConfig(n));
    const { info } = await ensureConsumer(jsm, n.eventsStream, eventsFanoutConsumerConfig(n));
    expect(info.config.max_deliver).toBe(-1);
    expect((await ensureConsumer(jsm, n.eventsStream, eventsFanoutConsumerConfig(n))).outcome).toBe(
      "unchanged",
    );
  });
});
