import { randomUUID } from "node:crypto";
import type pg from "pg";
import { ensureStream, eventsStreamConfig, names, publish } from "@svc/messaging";
import type { JetStreamClient, JetStreamManager } from "@svc/messaging";
import { startRelay } from "../src/index.ts";
import type { EventPayload } from "../src/index.ts";
import { enqueueMany, freshSchema } from "../test/support/outbox-fixtures.ts";
import { testNamespace } from "../test/support/nats.ts";

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

export type ThroughputRow = { variant: string; events: number; seconds: number; perSecond: number };

/**
 * Bare JetStream: the same payloads, pipelined in windows of `window`, each with a fresh msg id.
 */
async function bareBaseline(
  js: JetStreamClient,
  jsm: JetStreamManager,
  events: EventPayload[],
  window: number,
  namespaces: string[],
): Promise<number> {
  const n = names(testNamespace());
  namespaces.push(n.namespace);
  await ensureStream(jsm, eventsStreamConfig(n));
  const started = performance.now();
  for (let i = 0; i < events.length; i += window) {
    await Promise.all(
      events
        .slice(i, i + window)
        .map((e) => publish(js, n.eventSubject(e.event_type), e, { msgId: randomUUID() })),
    );
  }
  return (performance.now() - started) / 1000;
}

/** `relays` relays draining one outbox of `count` rows at once; seconds until every row is sent. */
async function relayDrain(o: {
  pool: pg.Pool;
  js: JetStreamClient;
  jsm: JetStreamManager;
  count: number;
  relays: number;
  concurrency: number;
  batchSize: number;
  namespaces: string[];
}): Promise<{ seconds: number; events: EventPayload[] }> {
  const schema = await freshSchema(o.pool, "bench");
  const events = await enqueueMany(o.pool, schema, o.count);
  const n = names(testNamespace());
  o.namespaces.push(n.namespace);
  await ensureStream(o.jsm, eventsStreamConfig(n));
  const relays = Array.from({ length: o.relays }, () =>
    startRelay({
      pool: o.pool,
      schema,
      js: o.js,
      jsm: o.jsm,
      names: n,
      logger: quiet,
      batchSize: o.batchSize,
      concurrency: o.concurrency,
      autoStart: false,
    }),
  );
  const started = performance.now();
  await Promise.all(relays.map((r) => r.runOnce()));
  const seconds = (performance.now() - started) / 1000;
  const published = relays.reduce((sum, r) => sum + r.stats().published, 0);
  if (published !== o.count) throw new Error(`relays published ${published} of ${o.count}`);
  return { seconds, events };
}

type Variant = { name: string; run: () => Promise<number> };

/**
 * Every variant `rounds` times, interleaved (the order rotates each round), median reported: on
 * a shared machine one run of anything varies widely, and interleaving spreads the noise
 * (docs/decisions/bench-harness.md).
 */
export async function measureRelay(o: {
  pool: pg.Pool;
  js: JetStreamClient;
  jsm: JetStreamManager;
  count: number;
  batchSize: number;
  rounds: number;
  namespaces: string[];
}): Promise<ThroughputRow[]> {
  // Warm-up: JIT, connections, code paths.
  await relayDrain({ ...o, count: 2_000, relays: 1, concurrency: 2 });
  let payloads: EventPayload[] = [];
  const drain = (relays: number, concurrency: number) => async () => {
    const r = await relayDrain({ ...o, relays, concurrency });
    payloads = r.events;
    return r.seconds;
  };
  const variants: Variant[] = [
    {
      name: `bare JetStream publish, pipelined ${o.batchSize}`,
      run: () => bareBaseline(o.js, o.jsm, payloads, o.batchSize, o.namespaces),
    },
    { name: "outbox relay ×1, default (2 batches in flight)", run: drain(1, 2) },
    { name: "outbox relay ×1, 1 batch in flight", run: drain(1, 1) },
    { name: "two relays on one outbox", run: drain(2, 2) },
  ];
  await drain(1, 2)(); // the bare loop publishes the very payloads the relays publish
  const times = variants.map(() => [] as number[]);
  for (let round = 0; round < o.rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const v = (k + round) % variants.length;
      times[v]!.push(await variants[v]!.run());
    }
  }
  return variants.map((v, i) => {
    const sorted = times[i]!.sort((a, b) => a - b);
    const seconds = sorted[Math.floor(sorted.length / 2)]!;
    return { variant: v.name, events: o.count, seconds, perSecond: o.count / seconds };
  });
}
