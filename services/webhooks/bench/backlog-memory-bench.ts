// Dispatcher memory while a backlog drains (the target: the dispatcher's memory stays flat, within
// 20 %, while a backlog of 100,000 pending deliveries drains). The dispatcher is the real entry
// point (src/dispatcher-main.ts) in its own process; its RSS is read from /proc/<pid>/status every
// 200 ms. Two ways a backlog arises, each from a fresh database and NATS namespace:
//   deliveries: 100,000 pending deliveries already recorded and queued (10,000 events × 10
//               subscriptions, made by the fan-out's own statement and queue, as the fan-out does)
//               while no dispatcher runs: a subscriber-side outage or a burst the workers trail.
//   events:     10,000 events waiting on the events stream while the dispatcher was down; it fans
//               them out (100,000 deliveries) and delivers at the same time.
// Run: npm exec -c 'node services/webhooks/bench/backlog-memory-bench.ts [options]' (or npm run
// bench:backlog -w @services/webhooks); options: --scenario=deliveries|events, --events=N,
// --heap-mb=N.
import type { createPgPool } from "@svc/db";
import { buildEvent } from "@svc/events";
import { publish } from "@svc/messaging";
import { processMemory, recordBenchRows, type BenchRow } from "@svc/bench";
import { build } from "@svc/build";
import { createTestCa } from "@svc/testing";
import { loadAverage, webhooksBenchWorld } from "./bench-database.ts";
import { createNatsDeliveryQueue } from "../src/messaging/nats-delivery-queue.ts";
import { PgDispatchStore } from "../src/store/pg-dispatch-store.ts";
import { spawnDispatcher } from "../test/support/dispatcher-process.ts";
import { killHard } from "../test/support/private-nats.ts";
import { startFastReceiver, type FastReceiver } from "./fast-receiver.ts";

const arg = (name: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const SUBSCRIPTIONS = 10;
const EVENTS = Number(arg("events") ?? 10_000);
const TOTAL = EVENTS * SUBSCRIPTIONS;
const SCENARIOS = (arg("scenario") ?? "deliveries,events").split(",") as Array<
  "deliveries" | "events"
>;
const SAMPLE_MS = 200;
/**
 * The dispatcher's V8 old-space budget (--max-old-space-size); 0 = Node's default, which sizes the
 * heap from the machine's memory (or the container's limit). Default 192 MB: about half the
 * chart's 384 Mi container limit, the budget Node derives there, so the bench runs as deployed.
 */
const HEAP_MB = Number(arg("heap-mb") ?? 192);
/** Major GCs are traced to read the live heap after each (what is really retained, unlike RSS). */
const NODE_ARGS = [
  "--trace-gc",
  "--trace-gc-ignore-scavenger",
  ...(HEAP_MB > 0 ? [`--max-old-space-size=${HEAP_MB}`] : []),
];
/**
 * RSS "at the start of the drain" is taken once this share is delivered: the process is warm (JIT,
 * pools, TLS sessions, buffers).
 */
const WARM_SHARE = 0.05;
const TARGET_RATIO = 1.2;
const out = (line = "") => process.stdout.write(`${line}\n`);

type Sample = { at: number; rssKb: number; delivered: number };
type MajorGc = { at: number; liveMb: number };
type Result = {
  scenario: string;
  idleKb: number;
  startKb: number;
  peakKb: number;
  endKb: number;
  liveMinMb: number;
  liveMaxMb: number;
  majorGcs: number;
  perSecond: number;
  drainSeconds: number;
  totalSeconds: number;
  duplicates: number;
  samples: Sample[];
};

const ca = createTestCa();
const results: Result[] = [];
try {
  for (const scenario of SCENARIOS) results.push(await runScenario(scenario));
} finally {
  ca.dispose();
}
report(results);

async function runScenario(scenario: "deliveries" | "events"): Promise<Result> {
  const receiver = await startFastReceiver({ key: ca.serverKey, cert: ca.serverCert });
  const world = await webhooksBenchWorld({
    name: "backlog-bench",
    poolMax: 16,
    caFile: ca.caFile,
    withDeliveries: true,
  });
  const { pool, n, js, env, service } = world;
  let dispatcher: ReturnType<typeof spawnDispatcher> | undefined;
  try {
    for (let i = 0; i < SUBSCRIPTIONS; i++)
      await service.create("backlog-client", {
        url: receiver.url(`/backlog/${i}`),
        eventTypes: ["vacancy.updated"],
      });
    const built = performance.now();
    if (scenario === "deliveries") await buildDeliveryBacklog(pool, createNatsDeliveryQueue(js, n));
    else
      await buildEventBacklog(
        async (e) =>
          void (await publish(js, n.eventSubject(e.event_type), e, { msgId: e.event_uuid })),
      );
    out(
      `[${scenario}] backlog of ${scenario === "deliveries" ? `${TOTAL} pending deliveries` : `${EVENTS} events`} built in ${((performance.now() - built) / 1000).toFixed(1)} s; load average ${loadAverage()}`,
    );

    const spawnedAt = Date.now();
    await build();
    dispatcher = spawnDispatcher(env, NODE_ARGS, "bundle");
    const gcs = traceMajorGcs(dispatcher);
    const samples = await sampleUntilDrained(dispatcher, receiver);
    const drained = Date.now();
    const pending = await waitForRecords(pool);
    if (pending !== 0) throw new Error(`${pending} deliveries still pending after the drain`);
    return summarise(scenario, samples, gcs, receiver, spawnedAt, drained);
  } finally {
    if (dispatcher) {
      if (dispatcher.exitCode === null) dispatcher.kill("SIGTERM");
      await Promise.race([
        new Promise((r) => dispatcher!.once("exit", r)),
        new Promise((r) => setTimeout(r, 10_000)),
      ]);
      await killHard(dispatcher);
    }
    await world.close();
    await receiver.close();
  }
}

/**
 * What the fan-out does per event (one statement, then one queue message per delivery), 16 events
 * at a time.
 */
async function buildDeliveryBacklog(
  pool: ReturnType<typeof createPgPool>,
  queue: ReturnType<typeof createNatsDeliveryQueue>,
): Promise<void> {
  const store = new PgDispatchStore(pool);
  await buildEventBacklog(async (e) => {
    const messages = await store.fanOut(
      { eventUuid: e.event_uuid, eventType: e.event_type, body: JSON.stringify(e) },
      new Date(),
    );
    if (messages.length !== SUBSCRIPTIONS)
      throw new Error(`fan-out made ${messages.length} deliveries, expected ${SUBSCRIPTIONS}`);
    await queue.enqueue(messages);
  });
}

async function buildEventBacklog(
  each: (e: ReturnType<typeof buildEvent>) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < EVENTS) {
        const i = next++;
        await each(
          buildEvent({
            type: "vacancy.updated",
            entityId: `v${i}`,
            publicBaseUrl: "https://bench.invalid",
          }),
        );
      }
    }),
  );
}

async function sampleUntilDrained(
  dispatcher: ReturnType<typeof spawnDispatcher>,
  receiver: FastReceiver,
): Promise<Sample[]> {
  const pid = dispatcher.pid!;
  const samples: Sample[] = [];
  const deadline = Date.now() + 15 * 60_000;
  while (receiver.distinct() < TOTAL) {
    if (Date.now() > deadline)
      throw new Error(`timed out: ${receiver.distinct()} of ${TOTAL} delivered`);
    const rssKb = rssKbOf(pid);
    if (rssKb === undefined)
      throw new Error(
        `the dispatcher process exited during the drain:\n${dispatcher.output().slice(-3_000)}`,
      );
    samples.push({ at: Date.now(), rssKb, delivered: receiver.distinct() });
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
  }
  samples.push({ at: Date.now(), rssKb: rssKbOf(pid) ?? 0, delivered: receiver.distinct() });
  return samples;
}

function rssKbOf(pid: number): number | undefined {
  const memory = processMemory(pid);
  return memory ? memory.rssMb * 1024 : undefined;
}

/** The receiver sees a POST before its record is written; wait for the records to catch up. */
async function waitForRecords(pool: ReturnType<typeof createPgPool>): Promise<number> {
  const pending = async () =>
    Number(
      (
        await pool.query<{ n: string }>(
          "SELECT count(*) AS n FROM webhooks.deliveries WHERE status = 'pending'",
        )
      ).rows[0]!.n,
    );
  const deadline = Date.now() + 30_000;
  let left = await pending();
  while (left > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    left = await pending();
  }
  return left;
}

/**
 * Parses `Mark-Compact 248.8 (368.2) -> 72.3 (357.6) MB`: heap used before (committed) -> used
 * after (committed).
 */
function traceMajorGcs(dispatcher: ReturnType<typeof spawnDispatcher>): MajorGc[] {
  const gcs: MajorGc[] = [];
  dispatcher.stdout!.on("data", (chunk: Buffer) => {
    for (const m of chunk.toString().matchAll(/Mark-Compact [\d.]+ \([\d.]+\) -> ([\d.]+) \(/g))
      gcs.push({ at: Date.now(), liveMb: Number(m[1]) });
  });
  return gcs;
}

function summarise(
  scenario: string,
  samples: Sample[],
  gcs: MajorGc[],
  receiver: FastReceiver,
  spawnedAt: number,
  drained: number,
): Result {
  const warmIndex = samples.findIndex((s) => s.delivered >= WARM_SHARE * TOTAL);
  const firstPost = samples.findIndex((s) => s.delivered > 0);
  const drain = samples.slice(warmIndex);
  const drainGcs = gcs.filter((g) => g.at >= drain[0]!.at && g.at <= drained).map((g) => g.liveMb);
  const seconds = ((receiver.lastAt() ?? drained) - (receiver.firstAt() ?? spawnedAt)) / 1000;
  return {
    scenario,
    idleKb: samples[Math.max(0, firstPost)]!.rssKb,
    startKb: drain[0]!.rssKb,
    peakKb: Math.max(...drain.map((s) => s.rssKb)),
    endKb: drain.at(-1)!.rssKb,
    perSecond: TOTAL / seconds,
    drainSeconds: seconds,
    totalSeconds: (drained - spawnedAt) / 1000,
    duplicates: receiver.received() - receiver.distinct(),
    liveMinMb: drainGcs.length > 0 ? Math.min(...drainGcs) : NaN,
    liveMaxMb: drainGcs.length > 0 ? Math.max(...drainGcs) : NaN,
    majorGcs: drainGcs.length,
    samples,
  };
}

function report(all: Result[]): void {
  const mb = (kb: number) => (kb / 1024).toFixed(1);
  out();
  const heap = HEAP_MB > 0 ? `--max-old-space-size=${HEAP_MB}` : "Node's default heap sizing";
  out(
    `dispatcher RSS while a backlog of ${TOTAL} deliveries drains (${EVENTS} events × ${SUBSCRIPTIONS} subscriptions; concurrency 128, 16 per subscription; ${heap}; keep-alive HTTPS receiver on 127.0.0.1 answering 204; load average ${loadAverage()})`,
  );
  out(
    "| backlog | RSS first POST | RSS start (5 % drained) | peak | end | peak / start | live heap after major GCs | deliveries/s | drain | spawn to drained | duplicates |",
  );
  out("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of all) {
    const ratio = r.peakKb / r.startKb;
    const live =
      r.majorGcs > 0
        ? `${r.liveMinMb.toFixed(0)}–${r.liveMaxMb.toFixed(0)} MB (${r.majorGcs} GCs)`
        : "no major GC";
    out(
      `| ${r.scenario === "deliveries" ? `${TOTAL} pending deliveries` : `${EVENTS} events to fan out`} | ${mb(r.idleKb)} MB | ${mb(r.startKb)} MB | ${mb(r.peakKb)} MB | ${mb(r.endKb)} MB | ${ratio.toFixed(2)} | ${live} | ${Math.round(r.perSecond)} | ${r.drainSeconds.toFixed(1)} s | ${r.totalSeconds.toFixed(1)} s | ${r.duplicates} |`,
    );
  }
  for (const r of all) {
    const at = (share: number) =>
      r.samples.find((s) => s.delivered >= share * TOTAL)?.rssKb ?? r.endKb;
    out(
      `[${r.scenario}] RSS at 10/25/50/75/100 % drained: ${[0.1, 0.25, 0.5, 0.75, 1].map((s) => `${mb(at(s))}`).join(" / ")} MB`,
    );
  }
  const met = all.every((r) => r.peakKb / r.startKb <= TARGET_RATIO);
  out(
    `target: peak RSS ≤ ${TARGET_RATIO} × RSS at the start of the drain: ${met ? "met" : "NOT met"}`,
  );
  const rows: BenchRow[] = all.flatMap((r) => {
    const scenario = `${r.scenario === "deliveries" ? `${TOTAL} pending deliveries` : `${EVENTS} events × ${SUBSCRIPTIONS} subscriptions`}, ${HEAP_MB > 0 ? `heap ${HEAP_MB} MB` : "default heap"}`;
    const ratio = r.peakKb / r.startKb;
    return [
      { scenario, metric: "rss_start", value: r.startKb / 1024, unit: "MB" },
      { scenario, metric: "rss_peak", value: r.peakKb / 1024, unit: "MB" },
      { scenario, metric: "rss_end", value: r.endKb / 1024, unit: "MB" },
      {
        scenario,
        metric: "rss_peak_over_start",
        value: Number(ratio.toFixed(3)),
        unit: "ratio",
        target: `<= ${TARGET_RATIO}`,
        met: ratio <= TARGET_RATIO,
      },
      { scenario, metric: "live_heap_max", value: r.liveMaxMb, unit: "MB" },
      {
        scenario,
        metric: "drain_throughput",
        value: Math.round(r.perSecond),
        unit: "deliveries/s",
      },
      { scenario, metric: "drain_time", value: Number(r.drainSeconds.toFixed(1)), unit: "s" },
    ];
  });
  recordBenchRows("webhooks-backlog-memory", rows);
}
