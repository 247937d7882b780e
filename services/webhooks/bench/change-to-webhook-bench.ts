// Change → webhook: from a committed UPDATE of a real legacy vacancy row (legacy_bench, 100,000
// vacancies) to the signed POST at a local HTTPS subscriber, through the real vacancies service
// (change detection, outbox, relay) and the real webhook dispatcher, each its own process started
// from its bundle as deployed. Beside it, in the same run: the same dispatcher's latency for events
// published straight to the stream (what detection adds is the difference), and the idle CPU of
// change detection (the leading vacancies replica minus a second, non-leading replica).
// Run: npm run bench -- --only change-to-webhook
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { buildEvent } from "@svc/events";
import { openServerConnection, seedDatabase } from "@svc/sandbox";
import { connectNats, drainNats, jetstream, names, publish } from "@svc/messaging";
import {
  processCpuMs,
  recordBenchRows,
  startServiceUnderBench,
  type ServiceUnderBench,
} from "@svc/bench";
import { build } from "@svc/build";
import { entryArgs } from "@svc/manifest";
import { NODE_FLAGS, RUNTIME_ENV } from "@svc/runtime";
import { createTestCa, silentLogger, sleep, testEnv } from "@svc/testing";
import { dateIn, localOfInstant } from "@svc/time";
import { createSubscriptionService } from "../src/compose.ts";
import { loadConfig } from "../src/config.ts";
import { systemClock } from "../src/domain/model.ts";
import { systemResolver } from "../src/outbound/resolver.ts";
import { webhooksBenchDatabase } from "./bench-database.ts";
import { baseEnv } from "../test/support/harness.ts";
import { spawnDispatcher } from "../test/support/dispatcher-process.ts";
import { killHard } from "../test/support/private-nats.ts";
import { startReceiver } from "../test/support/receiver.ts";
import { percentile, waitUntil } from "./bare-baseline.ts";

const RATE = 4; // legacy updates per second
const SECONDS = 30;
const IDLE_SECONDS = 30;
const DIRECT_EVENTS = 60; // published straight to the stream, at RATE
const ZONE = "Europe/Brussels";
const DATABASE = "legacy_bench";
const MYSQL = "mysql://root@127.0.0.1:3306";
const BENCH = "change to webhook";
const root = fileURLToPath(new URL("../../..", import.meta.url));
const out = (line = "") => process.stdout.write(`${line}\n`);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

/** legacy_bench at scale 50 (≈ 100,000 vacancies), seeded as the read benches seed it. */
async function benchData(): Promise<string> {
  const connection = await openServerConnection(MYSQL);
  try {
    const options = { seed: 1, scale: 50, today: dateIn(ZONE, Date.now()) };
    let result = await seedDatabase(connection, DATABASE, options, "if-absent", out);
    if (result.options.scale !== 50)
      result = await seedDatabase(connection, DATABASE, options, "replace", out);
  } finally {
    await connection.end();
  }
  return `${MYSQL}/${DATABASE}`;
}

const legacyUrl = await benchData();
await build();
const vacanciesArgs = [
  ...NODE_FLAGS,
  ...entryArgs("services/vacancies/src/main.ts", { from: "bundle" }),
];
const leader = await startServiceUnderBench({
  root,
  entry: "services/vacancies/src/main.ts",
  args: vacanciesArgs,
  env: { ...RUNTIME_ENV, LEGACY_DATABASE_URL: legacyUrl },
  keep: /change detection pass done/,
});
const cleanups: Array<() => Promise<unknown>> = [() => leader.stop()];
const writer = await openServerConnection(MYSQL);
await writer.query(`USE \`${DATABASE}\``);
const restore: Array<[string, string, string]> = [];
try {
  out(`load average at start: ${load()}`);
  const baseline = await leader.process.waitForLine(/"kind":"baseline"/, 600_000);
  out(`baseline sweep: ${/"durationMs":(\d+)/.exec(baseline)?.[1] ?? "?"} ms`);
  // A second replica on the same database and namespace: it runs the relay and serves, never the
  // detector, so its CPU is the leader's minus change detection.
  const replica = await startServiceUnderBench({
    root,
    entry: "services/vacancies/src/main.ts",
    args: vacanciesArgs,
    env: {
      ...RUNTIME_ENV,
      LEGACY_DATABASE_URL: legacyUrl,
      DATABASE_URL: leader.databaseUrl,
      NATS_NAMESPACE: leader.namespace,
    },
  });
  cleanups.push(() => replica.stop());
  const idle = await idleCost(leader, replica);

  const webhooks = await startWebhooks(leader.namespace);
  cleanups.push(webhooks.close);
  const direct = await directLatency(webhooks, leader.namespace);
  const changes = await changeLatency(webhooks);

  const ms = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const c = ms(changes.latencies);
  const d = ms(direct);
  const stat = (xs: number[]) => ({
    p50: percentile(xs, 50),
    p99: percentile(xs, 99),
    max: xs[xs.length - 1] ?? NaN,
  });
  const [cs, ds] = [stat(c), stat(d)];
  out(
    `\n${BENCH} (100,000 vacancies; ${changes.sent} updates at ${RATE}/s, ${changes.received} POSTs received; load average now ${load()})`,
  );
  out("| path | p50 | p99 | max |");
  out("|---|---:|---:|---:|");
  out(`| legacy UPDATE committed → POST | ${cs.p50} ms | ${cs.p99} ms | ${cs.max} ms |`);
  out(
    `| event published to the stream → POST (baseline) | ${ds.p50} ms | ${ds.p99} ms | ${ds.max} ms |`,
  );
  out(
    `idle change detection: ${idle.percent.toFixed(2)} % of one core (leader ${idle.leaderMs} ms − replica ${idle.replicaMs} ms CPU over ${IDLE_SECONDS} s)`,
  );
  out(`leader's passes so far (mean duration): ${await passDurations(leader.internalOrigin)}`);
  const scenario = `100,000 vacancies, ${RATE} updates/s for ${SECONDS} s, 1 subscription`;
  recordBenchRows(BENCH, [
    {
      scenario,
      metric: "change → POST p50",
      value: cs.p50,
      unit: "ms",
      baseline: ds.p50,
      target: "< 1,000 ms",
      met: cs.p50 < 1_000,
    },
    {
      scenario,
      metric: "change → POST p99",
      value: cs.p99,
      unit: "ms",
      baseline: ds.p99,
      target: "< 2,000 ms",
      met: cs.p99 < 2_000,
    },
    { scenario, metric: "change → POST max", value: cs.max, unit: "ms", baseline: ds.max },
    {
      scenario,
      metric: "POSTs missing",
      value: changes.sent - changes.received,
      unit: "updates",
      target: "0",
      met: changes.sent === changes.received,
    },
    {
      scenario: "100,000 vacancies, idle",
      metric: "change detection CPU",
      value: Math.round(idle.percent * 100) / 100,
      unit: "% of a core",
      target: "< 2 %",
      met: idle.percent < 2,
    },
  ]);
} finally {
  // The rows this bench changed get their content back, so the read benches see the seeded data.
  for (const [uuid, title, modified] of restore)
    await writer.query("UPDATE tbl_vacature SET kop_publiek = ?, gewijzigd_op = ? WHERE uuid = ?", [
      title,
      modified,
      uuid,
    ]);
  await writer.end();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
}

/** Mean duration per pass kind, from the process's change_detection_pass_duration histogram. */
async function passDurations(origin: string): Promise<string> {
  const text = await fetch(`${origin}/metrics`).then(
    (r) => r.text(),
    () => "",
  );
  const kinds = new Map<string, { sum: number; count: number }>();
  for (const line of text.split("\n")) {
    const m = /^change_detection_pass_duration\w*_(sum|count)\{([^}]*)\} (\S+)/.exec(line);
    const kind = m && /change_detection_kind="(\w+)"/.exec(m[2] ?? "")?.[1];
    if (!m || !kind || !(m[2] ?? "").includes('outcome="ok"')) continue;
    const k = kinds.get(kind) ?? { sum: 0, count: 0 };
    k[m[1] as "sum" | "count"] += Number(m[3]);
    kinds.set(kind, k);
  }
  return (
    [...kinds]
      .map(([kind, k]) => `${kind} ${k.count} × ${((k.sum / k.count) * 1000).toFixed(0)} ms`)
      .join(", ") || "(no metrics)"
  );
}

/** CPU of both replicas over the same idle window, after the first overlap passes ran. */
async function idleCost(a: ServiceUnderBench, b: ServiceUnderBench) {
  await sleep(10_000);
  const [a0, b0, t0] = [
    processCpuMs(a.process.pid),
    processCpuMs(b.process.pid),
    performance.now(),
  ];
  await sleep(IDLE_SECONDS * 1000);
  const [a1, b1, t1] = [
    processCpuMs(a.process.pid),
    processCpuMs(b.process.pid),
    performance.now(),
  ];
  const leaderMs = Math.round(a1 - a0);
  const replicaMs = Math.round(b1 - b0);
  return { leaderMs, replicaMs, percent: ((leaderMs - replicaMs) / (t1 - t0)) * 100 };
}

type Webhooks = Awaited<ReturnType<typeof startWebhooks>>;

/** The dispatcher process on the vacancies namespace, one subscription to vacancy.updated. */
async function startWebhooks(namespace: string) {
  const ca = createTestCa();
  const receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  const { database, pool } = await webhooksBenchDatabase("bench", "bench", 3);
  const env = {
    ...baseEnv({
      databaseUrl: database.url,
      namespace,
      natsUrl: testEnv.TEST_NATS_URL,
      caFile: ca.caFile,
    }),
    LOG_LEVEL: "warn",
    INTERNAL_PORT: "0",
  };
  const subscriptions = createSubscriptionService({
    config: loadConfig(env),
    logger: silentLogger(),
    pool,
    resolver: systemResolver(),
    queue: { enqueue: async () => {} },
    clock: systemClock,
  });
  const path = "/bench/changes";
  const { secret } = await subscriptions.create("bench-client", {
    url: receiver.url(path),
    eventTypes: ["vacancy.updated"],
  });
  receiver.setSecrets(path, [secret]);
  const dispatcher = spawnDispatcher(env, [], "bundle");
  const close = async () => {
    await killHard(dispatcher);
    await pool.end();
    await database.drop();
    await receiver.close().catch(() => undefined);
    ca.dispose();
  };
  /** POSTs received for entity `id`, with their arrival times. */
  const arrivals = () =>
    receiver.received(path).map((r) => ({
      id: (JSON.parse(r.body) as { entity: { id: string } }).entity.id,
      eventId: r.eventId,
      at: r.at,
    }));
  return { arrivals, close };
}

/** Events published straight to the stream (no detection): the dispatcher's part alone. */
async function directLatency(w: Webhooks, namespace: string): Promise<number[]> {
  const nc = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: "bench",
    logger: silentLogger(),
  });
  try {
    const js = jetstream(nc);
    const subject = names(namespace).eventSubject("vacancy.updated");
    const sentAt = new Map<string, number>();
    const send = async (i: number) => {
      const e = buildEvent({
        type: "vacancy.updated",
        entityId: `direct-${i}`,
        publicBaseUrl: "https://bench.invalid",
      });
      sentAt.set(e.event_uuid, Date.now());
      await publish(js, subject, e, { msgId: e.event_uuid });
    };
    await send(-1); // the dispatcher is up once the first delivery arrives
    await waitUntil(() => w.arrivals().length > 0, 60_000, "the dispatcher to start");
    for (let i = 0; i < DIRECT_EVENTS; i++) {
      await send(i);
      await sleep(1000 / RATE);
    }
    await waitUntil(
      () => w.arrivals().filter((a) => a.id.startsWith("direct-")).length >= DIRECT_EVENTS + 1,
      60_000,
      "the direct events",
    );
    return w
      .arrivals()
      .filter((a) => a.id.startsWith("direct-") && a.id !== "direct--1")
      .map((a) => a.at - (sentAt.get(a.eventId) ?? a.at));
  } finally {
    await drainNats(nc);
  }
}

/** Distinct live vacancies updated at RATE; each latency from the UPDATE's commit to its POST. */
async function changeLatency(w: Webhooks) {
  const total = RATE * SECONDS;
  const [rows] = await writer.query(
    "SELECT uuid, kop_publiek, gewijzigd_op FROM tbl_vacature WHERE verwijderd = 0 ORDER BY RAND() LIMIT ?",
    [total],
  );
  const picked = rows as Array<{ uuid: string; kop_publiek: string; gewijzigd_op: string }>;
  for (const r of picked) restore.push([r.uuid, r.kop_publiek, r.gewijzigd_op]);
  const committedAt = new Map<string, number>();
  const started = performance.now();
  for (const [i, r] of picked.entries()) {
    const wait = started + (i * 1000) / RATE - performance.now();
    if (wait > 1) await sleep(wait);
    await writer.query("UPDATE tbl_vacature SET kop_publiek = ?, gewijzigd_op = ? WHERE uuid = ?", [
      `${r.kop_publiek} (bench ${i})`,
      localOfInstant(Date.now(), ZONE),
      r.uuid,
    ]);
    committedAt.set(r.uuid, Date.now());
  }
  const got = () => w.arrivals().filter((a) => committedAt.has(a.id));
  await waitUntil(() => got().length >= picked.length, 60_000, "the change deliveries").catch(
    () => undefined,
  );
  const first = new Map<string, number>();
  for (const a of got()) if (!first.has(a.id)) first.set(a.id, a.at);
  return {
    sent: picked.length,
    received: first.size,
    latencies: [...first].map(([id, at]) => at - (committedAt.get(id) ?? at)),
  };
}
