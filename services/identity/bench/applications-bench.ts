// POST /v1/applications throughput, latency and server CPU per request, against a baseline
// measured in the same run: a plain node:http server doing a bare insert of the same rows
// (candidate, two identifiers, recruitment case, application, three outbox events) in one
// transaction straight through pg (baseline-process.ts, its own database). The service is its real
// entry point (the bundle of src/main.ts, launched with @svc/runtime's NODE_FLAGS, logging at info,
// its outbox relay publishing to NATS) in its own process; each server's RSS is read from /proc.
// Vacancy lookups are answered by a responder in this process. Load comes from C generators, not
// from a Node client sharing the two cores: wrk (16 connections, closed loop) for throughput, then
// the open-loop generator at half each scenario's own throughput for latency (the baseline at
// the same rate). Every request is a new person (its e-mail address and phone number carry the
// request's number).
//   npm exec -c 'node services/identity/bench/applications-bench.ts'
// BENCH_CPU_PROF=<dir> also writes the service's CPU profile there (node --cpu-prof).
// Needs the local PostgreSQL and NATS (TEST_PG_URL / TEST_NATS_URL as for the tests) and wrk.
import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { createPgPool, runMigrations } from "@svc/db";
import { connectNats, drainNats, names, serve } from "@svc/messaging";
import {
  IDLE_SETTLE_MS,
  memoryRows,
  openLoop,
  processCpuMs,
  recordBenchRows,
  runWrk,
  SEQ,
  settledRss,
  startBenchProcess,
  startServiceUnderBench,
  type BenchProcess,
  type BenchRow,
  benchMemoryLimit,
} from "@svc/bench";
import { build } from "@svc/build";
import { entryArgs } from "@svc/manifest";
import { createTempPgDatabase, silentLogger, testEnv } from "@svc/testing";
import { NODE_FLAGS, RUNTIME_ENV } from "@svc/runtime";
import { MIGRATIONS_FOLDER } from "../src/store/migrations.ts";

const CONNECTIONS = 16;
const THROUGHPUT_S = 5;
const LATENCY_S = 6;
// Targets alternate in rounds, so a machine whose load drifts during the run (shared CI or
// developer machines) weighs on each of them alike.
const ROUNDS = 3;
const THROUGHPUT_TARGET = 0.6;
const P99_TARGET_MS = 50;
const VACANCIES: string[] = Array.from({ length: 50 }, () => randomUUID());
const root = fileURLToPath(new URL("../../..", import.meta.url));

interface Target {
  name: string;
  origin: string;
  process: BenchProcess;
  headers: Record<string, string>;
  idempotent: boolean;
}

let batch = 100_000;
/**
 * A body template new for every load run: SEQ makes each request another person (a unique
 * e-mail address, and a phone number with a fixed-length run prefix, so numbers never collide).
 */
function bodyTemplate(): string {
  batch += 1;
  return JSON.stringify({
    vacancy_uuid: VACANCIES[batch % VACANCIES.length],
    candidate: { email: `bench.${batch}.${SEQ}@example.be`, phone: `+44${batch}${SEQ}` },
    consent: true,
    entrypoint: "website",
  });
}

interface Throughput {
  rps: number[];
  responses: number;
  cpuMs: number;
  failures: number;
  peakMb: number;
}

interface Latency {
  p50: number[];
  p99: number[];
  failures: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? NaN;
};
const non201 = (statuses: Record<string, number>) =>
  Object.entries(statuses).reduce((n, [code, count]) => n + (code === "201" ? 0 : count), 0);

async function throughputRound(t: Target, into: Throughput, durationS: number): Promise<void> {
  t.process.memory.reset();
  const cpuBefore = processCpuMs(t.process.pid);
  const r = await runWrk({
    url: `${t.origin}/v1/applications`,
    connections: CONNECTIONS,
    durationS,
    method: "POST",
    headers: { "content-type": "application/json", ...t.headers },
    body: bodyTemplate(),
    ...(t.idempotent ? { uniqueHeader: "Idempotency-Key" } : {}),
  });
  into.cpuMs += processCpuMs(t.process.pid) - cpuBefore;
  into.rps.push(r.rps);
  into.responses += r.requests;
  // wrk counts statuses of 400 and above without its per-response hook, which costs it CPU.
  into.failures += r.badStatuses + r.errors;
  into.peakMb = Math.max(into.peakMb, t.process.memory.peak());
}

async function latencyRound(t: Target, into: Latency, ratePerS: number): Promise<void> {
  t.process.memory.reset();
  const r = await openLoop({
    url: `${t.origin}/v1/applications`,
    ratePerS,
    durationS: LATENCY_S,
    connections: CONNECTIONS,
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...t.headers,
      ...(t.idempotent ? { "Idempotency-Key": `${randomUUID()}-${SEQ}` } : {}),
    },
    body: bodyTemplate(),
  });
  into.p50.push(r.p50);
  into.p99.push(r.p99);
  into.failures += non201(r.statuses) + r.errors + r.unfinished;
}

async function main(): Promise<void> {
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; node flags of both servers: ${NODE_FLAGS.join(" ") || "(none)"}`,
  );
  await build();
  const service = await startServiceUnderBench({
    root,
    entry: "services/identity/src/main.ts",
    args: [
      ...NODE_FLAGS,
      ...(process.env.BENCH_CPU_PROF
        ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
        : []),
      ...entryArgs("services/identity/src/main.ts", { from: "bundle" }),
    ],
    env: {
      ...RUNTIME_ENV,
      IDENTITY_PEPPER: "bench-pepper-that-is-at-least-32-bytes-long",
      DATABASE_POOL_MAX: String(CONNECTIONS),
    },
    ...benchMemoryLimit("identity"),
  });
  const nc = await connectNats({
    servers: testEnv.TEST_NATS_URL,
    name: "identity-bench",
    logger: silentLogger(),
  });
  const responder = serve<{ uuid: string }, unknown>(
    nc,
    names(service.namespace).rpc.vacancyExists,
    ({ uuid }) => ({ exists: VACANCIES.includes(uuid), practice_id: "bench-practice" }),
    { queue: "vacancies", logger: silentLogger() },
  );
  const baselineDb = await createTempPgDatabase("identity_bench");
  let baselineProcess: BenchProcess | undefined;
  try {
    const migrate = createPgPool({
      url: baselineDb.url,
      schema: "identity",
      applicationName: "identity-bench",
    });
    await runMigrations(migrate, { schema: "identity", migrationsFolder: MIGRATIONS_FOLDER });
    await migrate.end();
    baselineProcess = startBenchProcess(
      [
        ...NODE_FLAGS,
        fileURLToPath(new URL("./baseline-process.ts", import.meta.url)),
        baselineDb.url,
        String(CONNECTIONS),
      ],
      {
        env: { ...RUNTIME_ENV, NODE_ENV: "production" },
        keep: /^\{"port"/,
        ...benchMemoryLimit("identity"),
      },
    );
    const port = (
      JSON.parse(await baselineProcess.waitForLine(/^\{"port"/, 30_000)) as { port: number }
    ).port;
    const token = await service.mint({ scope: "applications:write" });
    const auth = { authorization: `Bearer ${token}` };
    const bare: Target = {
      name: "baseline: node:http + bare insert of the same rows (pg, 1 tx)",
      origin: `http://127.0.0.1:${port}`,
      process: baselineProcess,
      headers: {},
      idempotent: false,
    };
    const targets: Target[] = [
      bare,
      {
        name: "POST /v1/applications (new person)",
        origin: service.origin,
        process: service.process,
        headers: auth,
        idempotent: false,
      },
      {
        name: "POST /v1/applications + Idempotency-Key",
        origin: service.origin,
        process: service.process,
        headers: auth,
        idempotent: true,
      },
    ];
    const warm: Throughput = { rps: [], responses: 0, cpuMs: 0, failures: 0, peakMb: 0 };
    for (const t of targets) await throughputRound(t, warm, 2);
    await new Promise((r) => setTimeout(r, 3_000));
    const [serviceIdle, baselineIdle] = await Promise.all([
      settledRss(service.process.pid, { settleMs: IDLE_SETTLE_MS }),
      settledRss(baselineProcess.pid, { settleMs: IDLE_SETTLE_MS }),
    ]);
    const throughput = targets.map((): Throughput => ({
      rps: [],
      responses: 0,
      cpuMs: 0,
      failures: 0,
      peakMb: 0,
    }));
    for (let round = 0; round < ROUNDS; round++)
      for (const [i, t] of targets.entries())
        await throughputRound(t, throughput[i] as Throughput, THROUGHPUT_S);
    // Latency at half of what each scenario sustains, the baseline at the same rate beside it.
    const rates = targets.map((_, i) =>
      Math.max(1, Math.round(median((throughput[i] as Throughput).rps) / 2)),
    );
    const latency = targets.map((): Latency => ({ p50: [], p99: [], failures: 0 }));
    const bareLatency = targets.map((): Latency => ({ p50: [], p99: [], failures: 0 }));
    for (let round = 0; round < ROUNDS; round++)
      for (const [i, t] of targets.entries()) {
        if (t === bare) continue;
        await latencyRound(bare, bareLatency[i] as Latency, rates[i] as number);
        await latencyRound(t, latency[i] as Latency, rates[i] as number);
      }

    const summary = targets.map((t, i) => {
      const tp = throughput[i] as Throughput;
      const lat = latency[i] as Latency;
      const bareLat = bareLatency[i] as Latency;
      return {
        name: t.name,
        rps: median(tp.rps),
        cpuUs: (tp.cpuMs * 1000) / Math.max(1, tp.responses),
        rate: rates[i] as number,
        p50: median(lat.p50),
        p99: median(lat.p99),
        bareP50: median(bareLat.p50),
        bareP99: median(bareLat.p99),
        failures: tp.failures + lat.failures,
        bareFailures: bareLat.failures,
        peakMb: tp.peakMb,
      };
    });
    const base = summary[0] as (typeof summary)[number];
    console.log(
      `\nidentity: POST /v1/applications; throughput: wrk, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${THROUGHPUT_S} s (median); latency: open loop at half each scenario's throughput, the baseline at the same rate, ${ROUNDS} rounds of ${LATENCY_S} s (median)\n`,
    );
    console.table(
      summary.slice(1).map((r) => ({
        scenario: r.name,
        "req/s": r.rps.toFixed(0),
        "open loop req/s": r.rate,
        "p50 ms": r.p50.toFixed(1),
        "p99 ms": r.p99.toFixed(1),
        "baseline p99 ms": r.bareP99.toFixed(1),
        "server CPU µs/req": r.cpuUs.toFixed(0),
        "peak RSS MB": r.peakMb.toFixed(0),
        failures: r.failures,
        "throughput vs baseline": `${(r.rps / base.rps).toFixed(2)}x`,
      })),
    );
    const peak = Math.max(...summary.slice(1).map((r) => r.peakMb));
    console.log(
      `RSS: service idle ${serviceIdle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB; baseline idle ${baselineIdle.toFixed(0)} MB, peak ${base.peakMb.toFixed(0)} MB (targets < 120 / < 200 MB)`,
    );
    console.log(
      `load average at end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    const r1 = (x: number) => Math.round(x * 10) / 10;
    const rows: BenchRow[] = summary.slice(1).flatMap((r) => {
      const closed = `${r.name}, wrk ${CONNECTIONS} conns`;
      const open = `${r.name}, open loop at half its throughput`;
      return [
        {
          scenario: closed,
          metric: "throughput",
          value: Math.round(r.rps),
          unit: "req/s",
          baseline: Math.round(base.rps),
          target: `≥ ${THROUGHPUT_TARGET}× baseline`,
          met: r.rps >= THROUGHPUT_TARGET * base.rps,
        },
        {
          scenario: closed,
          metric: "server CPU per request",
          value: Math.round(r.cpuUs),
          unit: "µs",
          baseline: Math.round(base.cpuUs),
        },
        { scenario: open, metric: "rate", value: r.rate, unit: "req/s", baseline: r.rate },
        { scenario: open, metric: "p50", value: r1(r.p50), unit: "ms", baseline: r1(r.bareP50) },
        {
          scenario: open,
          metric: "p99",
          value: r1(r.p99),
          unit: "ms",
          baseline: r1(r.bareP99),
          target: `< ${P99_TARGET_MS} ms`,
          met: r.p99 < P99_TARGET_MS,
        },
        ...(r.failures + base.failures + r.bareFailures > 0
          ? [
              {
                scenario: closed,
                metric: "failed requests",
                value: r.failures,
                unit: "responses",
                baseline: base.failures + r.bareFailures,
                target: "0",
                met: r.failures === 0,
              },
            ]
          : []),
      ];
    });
    rows.push(
      ...memoryRows("identity process (main.ts)", {
        idleMb: serviceIdle,
        baselineIdleMb: baselineIdle,
        peakMb: peak,
        baselinePeakMb: base.peakMb,
      }),
    );
    recordBenchRows("identity applications", rows);
  } finally {
    await baselineProcess?.stop();
    await responder.stop();
    await drainNats(nc);
    await service.stop();
    await baselineDb.drop();
  }
}

await main();
