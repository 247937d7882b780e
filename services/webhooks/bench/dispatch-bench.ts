// Webhook dispatch: deliveries/s to a local keep-alive HTTPS receiver and event-to-POST latency,
// beside a bare baseline in the same run (a plain undici loop POSTing the same signed payloads).
// The dispatcher is the real entry point (src/dispatcher-main.ts) in its own process, as deployed.
// Run: npm exec -c 'node services/webhooks/bench/dispatch-bench.ts' (from the repository root).
import { readFileSync } from "node:fs";
import { buildEvent } from "@svc/events";
import { publish } from "@svc/messaging";
import { recordBenchRows } from "@svc/bench";
import { build } from "@svc/build";
import { testEnv, createTestCa } from "@svc/testing";
import { loadAverage, webhooksBenchWorld } from "./bench-database.ts";
import { spawnDispatcher } from "../test/support/dispatcher-process.ts";
import { killHard } from "../test/support/private-nats.ts";
import { startReceiver } from "../test/support/receiver.ts";
import { bareBaseline, percentile, waitUntil } from "./bare-baseline.ts";
import {
  curveRows,
  curveTable,
  loadCurve,
  pidsByCommandLine,
  processCpuMs,
  type CurveStep,
} from "./load-curve.ts";

const THROUGHPUT_SUBSCRIPTIONS = 10;
const THROUGHPUT_EVENTS = 3_000; // × 10 subscriptions = 30,000 deliveries
const PACED_RATE = 200; // events/s, one subscription
const PACED_SECONDS = 10;
const BURST_TARGET_RATIO = 0.7; // of the bare loop's deliveries/s
const CONCURRENCY = 128; // WEBHOOK_DELIVERY_CONCURRENCY default
// Load curve: events/s per step (× 10 subscriptions = deliveries/s), ×1.4 a step, until saturated.
const CURVE_EVENT_RATES = [2, 5, 10, 14, 20, 28, 40, 56, 80, 110, 160, 220, 310, 430];
const CURVE_STEP_SECONDS = 5;
const CURVE_SCENARIO = `load curve, ${THROUGHPUT_SUBSCRIPTIONS} subscriptions`;
const out = (line = "") => process.stdout.write(`${line}\n`);

const ca = createTestCa();
const receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
const world = await webhooksBenchWorld({
  name: "webhooks-bench",
  poolMax: 5,
  caFile: ca.caFile,
  env: { WEBHOOK_DELIVERY_CONCURRENCY: String(CONCURRENCY) },
});
const { n, js, jsm, env, service, database, pool } = world;
// --profile (or --cpu-prof): writes a CPU profile of the dispatcher to /tmp/webhooks-prof.
const PROFILE = process.argv.includes("--profile") || process.argv.includes("--cpu-prof");
// --curve-only: the load curve alone (printed and recorded), without the burst, paced and bare runs.
const CURVE_ONLY = process.argv.includes("--curve-only");
await build();
const dispatcher = spawnDispatcher(
  env,
  PROFILE ? ["--cpu-prof", "--cpu-prof-dir=/tmp/webhooks-prof"] : [],
  "bundle",
);

try {
  const fanOutPaths: string[] = [];
  for (let i = 0; i < THROUGHPUT_SUBSCRIPTIONS; i++)
    fanOutPaths.push(await subscribe(`/bench/fan/${i}`, "vacancy.updated"));
  const pacedPath = await subscribe("/bench/paced", "practice.updated");
  await warmUp();
  if (CURVE_ONLY) {
    const curve = await measureCurve();
    out(curveTable(curve, THROUGHPUT_SUBSCRIPTIONS, CURVE_STEP_SECONDS));
    out(`load average ${loadAverage()}`);
    recordBenchRows("webhooks-dispatch", curveRows(curve, CURVE_SCENARIO));
  } else await fullRun(fanOutPaths, pacedPath);
} finally {
  if (PROFILE)
    process.stderr.write(
      `--- dispatcher output (tail) ---\n${dispatcher.output().slice(-4_000)}\n`,
    );
  if (PROFILE) {
    dispatcher.kill("SIGTERM");
    await new Promise((r) => dispatcher.once("exit", r));
  }
  await killHard(dispatcher);
  await world.close();
  await receiver.close();
  ca.dispose();
}

async function fullRun(fanOutPaths: string[], pacedPath: string): Promise<void> {
  const published = new Map<string, number>();
  const cpuBefore = cpuMs(dispatcher.pid!);
  const throughput = await measureThroughput(published, fanOutPaths);
  const cpuBurst = cpuMs(dispatcher.pid!) - cpuBefore;
  const queueAfterBurst = await deliveriesConsumerCounts();
  const paced = await measurePaced(published, pacedPath);
  const cpuPaced = cpuMs(dispatcher.pid!) - cpuBefore - cpuBurst;
  const queueAfterPaced = await deliveriesConsumerCounts();
  const stages = await pacedStages(published, pacedPath);
  const curve = await measureCurve();
  const bare = await bareBaseline({
    url: receiver.url("/bench/bare"),
    caPem: ca.caPem,
    count: THROUGHPUT_EVENTS * THROUGHPUT_SUBSCRIPTIONS,
    concurrency: CONCURRENCY,
    pacedRate: PACED_RATE,
    pacedSeconds: PACED_SECONDS,
  });

  const burstMet = throughput.perSecond >= BURST_TARGET_RATIO * bare.perSecond;
  out(
    `webhook dispatch (dispatcher process: concurrency ${CONCURRENCY}; receiver: node:https keep-alive on 127.0.0.1, verifies every signature; PostgreSQL, NATS 2.9 file storage, all on this machine)`,
  );
  out("| variant | deliveries/s | event-to-POST p50 | p99 | vs bare |");
  out("|---|---:|---:|---:|---:|");
  out(
    `| bare undici loop, ${bare.count} signed POSTs, ${CONCURRENCY} in flight | ${Math.round(bare.perSecond)} | ${bare.p50.toFixed(1)} ms | ${bare.p99.toFixed(1)} ms | 1.00 |`,
  );
  out(
    `| dispatcher, burst of ${THROUGHPUT_EVENTS} events × ${THROUGHPUT_SUBSCRIPTIONS} subscriptions | ${Math.round(throughput.perSecond)} | ${throughput.p50.toFixed(0)} ms | ${throughput.p99.toFixed(0)} ms | ${(throughput.perSecond / bare.perSecond).toFixed(2)} |`,
  );
  out(
    `| bare undici loop, paced ${PACED_RATE}/s | ${PACED_RATE} | ${bare.pacedP50.toFixed(1)} ms | ${bare.pacedP99.toFixed(1)} ms | |`,
  );
  out(
    `| dispatcher, paced ${PACED_RATE} events/s for ${PACED_SECONDS} s, 1 subscription | ${Math.round(paced.perSecond)} | ${paced.p50.toFixed(1)} ms | ${paced.p99.toFixed(1)} ms | |`,
  );
  out(
    `(burst latency includes queueing behind the whole burst; duplicates seen: ${throughput.duplicates + paced.duplicates})`,
  );
  out(
    `targets: ≥ ${BURST_TARGET_RATIO}× the bare loop's deliveries/s: ${burstMet ? "met" : "NOT met"}; p99 event-to-POST < 250 ms at ${PACED_RATE} events/s: ${paced.p99 < 250 ? "met" : "NOT met"}`,
  );
  out(`load average ${loadAverage()}`);
  const burstDeliveries = THROUGHPUT_EVENTS * THROUGHPUT_SUBSCRIPTIONS;
  const pacedDeliveries = PACED_RATE * PACED_SECONDS;
  out(
    `dispatcher CPU (user + system) per delivery: burst ${(cpuBurst / burstDeliveries).toFixed(2)} ms, paced ${(cpuPaced / pacedDeliveries).toFixed(2)} ms; ` +
      `queue messages handed out per delivery (1 = no defers or redeliveries): burst ${(queueAfterBurst.delivered / queueAfterBurst.stored).toFixed(2)}, ` +
      `paced ${((queueAfterPaced.delivered - queueAfterBurst.delivered) / (queueAfterPaced.stored - queueAfterBurst.stored)).toFixed(2)}`,
  );
  out(stages);
  out(curveTable(curve, THROUGHPUT_SUBSCRIPTIONS, CURVE_STEP_SECONDS));
  recordBenchRows("webhooks-dispatch", [
    {
      scenario: `burst ${THROUGHPUT_EVENTS} events × ${THROUGHPUT_SUBSCRIPTIONS} subscriptions`,
      metric: "throughput",
      value: Math.round(throughput.perSecond),
      unit: "deliveries/s",
      baseline: Math.round(bare.perSecond),
      target: `≥ ${BURST_TARGET_RATIO}× baseline`,
      met: burstMet,
    },
    {
      scenario: `paced ${PACED_RATE} events/s, 1 subscription`,
      metric: "event-to-POST p50",
      value: paced.p50,
      unit: "ms",
      baseline: Number(bare.pacedP50.toFixed(1)),
    },
    {
      scenario: `paced ${PACED_RATE} events/s, 1 subscription`,
      metric: "event-to-POST p99",
      value: paced.p99,
      unit: "ms",
      baseline: Number(bare.pacedP99.toFixed(1)),
      target: "< 250 ms",
      met: paced.p99 < 250,
    },
    {
      scenario: "burst",
      metric: "dispatcher CPU per delivery",
      value: Number((cpuBurst / burstDeliveries).toFixed(3)),
      unit: "ms",
    },
    ...curveRows(curve, CURVE_SCENARIO),
  ]);
}

async function subscribe(
  path: string,
  type: "vacancy.updated" | "practice.updated" | "system.ping",
): Promise<string> {
  const { secret } = await service.create("bench-client", {
    url: receiver.url(path),
    eventTypes: [type],
  });
  receiver.setSecrets(path, [secret]);
  return path;
}

/** The load curve to the 10 fan-out subscriptions, with the CPU of each process involved. */
async function measureCurve(): Promise<CurveStep[]> {
  const dbName = new URL(database.url).pathname.slice(1);
  const natsPort = new URL(testEnv.TEST_NATS_URL).port || "4222";
  const nats = pidsByCommandLine(["nats-server", `-p ${natsPort}`]);
  return loadCurve({
    eventRates: CURVE_EVENT_RATES,
    deliveriesPerEvent: THROUGHPUT_SUBSCRIPTIONS,
    stepSeconds: CURVE_STEP_SECONDS,
    drainTimeoutMs: 60_000,
    publish: () => {
      const e = buildEvent({
        type: "vacancy.updated",
        entityId: "c",
        publicBaseUrl: "https://bench.invalid",
      });
      const sent = publish(js, n.eventSubject(e.event_type), e, { msgId: e.event_uuid });
      return { eventId: e.event_uuid, sent };
    },
    arrivals: (from) => receiver.receivedFrom(from),
    cpuMs: {
      dispatcher: () => cpuMs(dispatcher.pid!),
      "bench (publisher, receiver)": () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      },
      // Listed at each sample: the pool opens connections as it needs them.
      "PostgreSQL (this database)": processCpuMs(() =>
        pidsByCommandLine(["postgres: ", ` ${dbName} `]),
      ),
      "NATS server (shared)": processCpuMs(() => nats),
    },
  });
}

/**
 * The dispatcher process is up once a first event makes it through (start-up takes a few seconds).
 */
async function warmUp(): Promise<void> {
  const path = await subscribe("/bench/warm-up", "system.ping");
  const event = buildEvent({
    type: "system.ping",
    entityId: "warm-up",
    publicBaseUrl: "https://bench.invalid",
  });
  await publish(js, n.eventSubject(event.event_type), event, { msgId: event.event_uuid });
  await waitUntil(() => receiver.received(path).length > 0, 30_000, "the dispatcher to start");
}

async function measureThroughput(published: Map<string, number>, paths: string[]) {
  const events = Array.from({ length: THROUGHPUT_EVENTS }, (_, i) =>
    buildEvent({
      type: "vacancy.updated",
      entityId: `v${i}`,
      publicBaseUrl: "https://bench.invalid",
    }),
  );
  const expected = events.length * paths.length;
  let scanned = receiver.receivedFrom(0).length;
  const started = performance.now();
  const startedAt = Date.now();
  for (let i = 0; i < events.length; i += 250) {
    await Promise.all(
      events.slice(i, i + 250).map((e) => {
        published.set(e.event_uuid, Date.now());
        return publish(js, n.eventSubject(e.event_type), e, { msgId: e.event_uuid });
      }),
    );
  }
  // Counted from the new arrivals only: filtering the whole log for each path every 20 ms would
  // stall the receiver (same process) longer as the log grows, which the bare loop never pays.
  const wanted = new Set(paths);
  let arrived = 0;
  const count = () => {
    const fresh = receiver.receivedFrom(scanned);
    scanned += fresh.length;
    for (const r of fresh) if (wanted.has(r.path)) arrived++;
    return arrived;
  };
  await waitUntil(() => count() >= expected, 300_000, "the burst to be delivered");
  const seconds = (performance.now() - started) / 1000;
  const got = paths.flatMap((p) => receiver.received(p)).filter((r) => r.at >= startedAt);
  return {
    perSecond: expected / seconds,
    ...latencies(got, published),
    duplicates: got.length - expected,
  };
}

async function measurePaced(published: Map<string, number>, path: string) {
  const total = PACED_RATE * PACED_SECONDS;
  const started = performance.now();
  const sends: Promise<unknown>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / PACED_RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const e = buildEvent({
      type: "practice.updated",
      entityId: `p${i}`,
      publicBaseUrl: "https://bench.invalid",
    });
    published.set(e.event_uuid, Date.now());
    sends.push(publish(js, n.eventSubject(e.event_type), e, { msgId: e.event_uuid }));
  }
  await Promise.all(sends);
  await waitUntil(
    () => receiver.received(path).length >= total,
    180_000,
    "the paced events to be delivered",
  );
  const seconds = (performance.now() - started) / 1000;
  const got = receiver.received(path);
  return {
    perSecond: total / seconds,
    ...latencies(got, published),
    duplicates: got.length - total,
  };
}

function latencies(got: Array<{ eventId: string; at: number }>, published: Map<string, number>) {
  const ms = got.map((r) => r.at - (published.get(r.eventId) ?? r.at)).sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

/**
 * Where the paced events' time went, from the records: publish → fan-out (its clock reading, the
 * delivery's created_at) → attempt start (after the queue hop and the record load: attempted_at)
 * → the receiver. Printed as p50/p99 per stage and the five slowest events, to tell a stall in
 * one stage (a slow commit, a late pull) from queueing.
 */
async function pacedStages(published: Map<string, number>, path: string): Promise<string> {
  const { rows } = await pool.query<{ event_uuid: string; created_at: Date; attempted_at: Date }>(
    `SELECT d.event_uuid, d.created_at, a.attempted_at FROM webhooks.deliveries d
     JOIN webhooks.delivery_attempts a ON a.delivery_id = d.id AND a.number = 1
     JOIN webhooks.subscriptions s ON s.id = d.subscription_id WHERE s.url LIKE $1`,
    [`%${path}`],
  );
  const postAt = new Map(receiver.received(path).map((r) => [r.eventId, r.at]));
  const paths = rows
    .filter((r) => published.has(r.event_uuid) && postAt.has(r.event_uuid))
    .map((r) => {
      const t0 = published.get(r.event_uuid)!;
      const fanOut = r.created_at.getTime() - t0;
      const toAttempt = r.attempted_at.getTime() - r.created_at.getTime();
      const post = postAt.get(r.event_uuid)! - r.attempted_at.getTime();
      return { at: t0, fanOut, toAttempt, post, total: fanOut + toAttempt + post };
    });
  const stat = (pick: (p: (typeof paths)[number]) => number) => {
    const sorted = paths.map(pick).sort((a, b) => a - b);
    return `${percentile(sorted, 50)}/${percentile(sorted, 99)}`;
  };
  const start = Math.min(...paths.map((p) => p.at));
  const slowest = [...paths]
    .sort((a, b) => b.total - a.total)
    .slice(0, 5)
    .map(
      (p) =>
        `  +${((p.at - start) / 1000).toFixed(2)} s: ${p.total} ms = to fan-out ${p.fanOut} + fan-out, queue, load ${p.toAttempt} + sign, POST ${p.post}`,
    );
  return [
    `paced stages p50/p99 (ms): publish → fan-out ${stat((p) => p.fanOut)}; fan-out → attempt start ${stat((p) => p.toAttempt)}; attempt start → received ${stat((p) => p.post)}`,
    "slowest paced events (seconds into the paced phase):",
    ...slowest,
  ].join("\n");
}

/**
 * CPU time (user + system) a process has used so far, from /proc/<pid>/stat (clock ticks of 10 ms).
 */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Messages the deliveries stream has stored so far, and how many times its consumer handed one out.
 */
async function deliveriesConsumerCounts(): Promise<{ stored: number; delivered: number }> {
  const info = await jsm.consumers.info(n.deliveriesStream, n.consumers.deliveries);
  const stream = await jsm.streams.info(n.deliveriesStream);
  return { stored: stream.state.last_seq, delivered: info.delivered.consumer_seq };
}
