// POST /v1/applications throughput and latency at 16 concurrent clients, against a baseline
// measured in the same run: a plain node:http server doing a bare insert of the same rows
// (candidate, two identifiers, recruitment case, application, three outbox events) in one
// transaction straight through pg (baseline-process.ts, its own database). Both loaded by the same
// client, in alternating rounds. The service is its real entry point (the bundle of src/main.ts,
// launched with @svc/runtime's NODE_FLAGS, logging at info, its outbox relay publishing to NATS) in
// its own process; each server's RSS is read from /proc. Vacancy lookups are answered by a
// responder in this process.
//   npm exec -c 'node services/identity/bench/applications-bench.ts [requests]'
// Needs the local PostgreSQL and NATS (TEST_PG_URL / TEST_NATS_URL as for the tests).
import { randomBytes, randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { createPgPool, runMigrations } from "@svc/db";
import { connectNats, drainNats, names, serve } from "@svc/messaging";
import {
  IDLE_SETTLE_MS,
  memoryRows,
  processCpuMs,
  recordBenchRows,
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

const CONCURRENCY = 16;
const REQUESTS = Number(process.argv[2] ?? 2_000);
const WARM_UP = 200;
// Scenarios alternate in rounds, so a machine whose load drifts during the run (shared CI or
// developer machines) weighs on each of them alike.
const ROUNDS = 5;
const VACANCIES: string[] = Array.from({ length: 50 }, () => randomUUID());
const root = fileURLToPath(new URL("../../..", import.meta.url));

interface Target {
  origin: string;
  process: BenchProcess;
  headers: (i: number) => Record<string, string>;
}

interface Result {
  name: string;
  requests: number;
  seconds: number;
  latenciesMs: number[];
  cpuMs: number;
  peakMb: number;
  failures: number;
}

const person = () => ({
  email: `bench.${randomBytes(6).toString("hex")}@example.be`,
  phone: `+32 47${String(randomBytes(4).readUInt32BE(0) % 10_000_000).padStart(7, "0")}`,
});
const body = () =>
  JSON.stringify({
    vacancy_uuid: VACANCIES[Math.floor(Math.random() * VACANCIES.length)],
    candidate: person(),
    consent: true,
    entrypoint: "website",
  });

/**
 * `total` POSTs with CONCURRENCY in flight; each call's latency, the server's CPU time and peak
 * RSS.
 */
async function measure(name: string, target: Target, total: number): Promise<Result> {
  const pool = new Pool(target.origin, { connections: CONCURRENCY, pipelining: 1 });
  const latenciesMs: number[] = [];
  let next = 0;
  let failures = 0;
  target.process.memory.reset();
  const cpuBefore = processCpuMs(target.process.pid);
  const started = performance.now();
  const client = async () => {
    for (let i = next++; i < total; i = next++) {
      const t0 = performance.now();
      const res = await pool.request({
        path: "/v1/applications",
        method: "POST",
        headers: { "content-type": "application/json", ...target.headers(i) },
        body: body(),
      });
      await res.body.arrayBuffer();
      if (res.statusCode !== 201) failures += 1;
      latenciesMs.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  const seconds = (performance.now() - started) / 1000;
  const cpuMs = processCpuMs(target.process.pid) - cpuBefore;
  await pool.close();
  return {
    name,
    requests: total,
    seconds,
    latenciesMs,
    cpuMs,
    peakMb: target.process.memory.peak(),
    failures,
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

function summary(r: Result) {
  const sorted = [...r.latenciesMs].sort((a, b) => a - b);
  return {
    rps: r.requests / r.seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    cpuUs: (r.cpuMs * 1000) / r.requests,
  };
}

function row(r: Result, baseline: Result) {
  const s = summary(r);
  const b = summary(baseline);
  return {
    scenario: r.name,
    requests: r.requests,
    "req/s": s.rps.toFixed(0),
    "p50 ms": s.p50.toFixed(1),
    "p99 ms": s.p99.toFixed(1),
    "server CPU µs/req": s.cpuUs.toFixed(0),
    "peak RSS MB": r.peakMb.toFixed(0),
    failures: r.failures,
    "throughput vs baseline": `${(s.rps / b.rps).toFixed(2)}x`,
    "p99 vs baseline": `${(s.p99 / b.p99).toFixed(1)}x`,
  };
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
      DATABASE_POOL_MAX: String(CONCURRENCY),
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
        String(CONCURRENCY),
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
    const app: Target = {
      origin: service.origin,
      process: service.process,
      headers: () => ({ authorization: `Bearer ${token}` }),
    };
    const appIdempotent: Target = {
      ...app,
      headers: () => ({ authorization: `Bearer ${token}`, "idempotency-key": randomUUID() }),
    };
    const bare: Target = {
      origin: `http://127.0.0.1:${port}`,
      process: baselineProcess,
      headers: () => ({}),
    };

    await measure("warm-up", app, WARM_UP);
    await measure("warm-up", bare, WARM_UP);
    await new Promise((r) => setTimeout(r, 3_000));
    const [serviceIdle, baselineIdle] = await Promise.all([
      settledRss(service.process.pid, { settleMs: IDLE_SETTLE_MS }),
      settledRss(baselineProcess.pid, { settleMs: IDLE_SETTLE_MS }),
    ]);
    const idle = { service: serviceIdle, baseline: baselineIdle };
    const scenarios: Array<[string, Target]> = [
      ["baseline: node:http + bare insert of the same rows (pg, 1 tx)", bare],
      ["POST /v1/applications (new person)", app],
      ["POST /v1/applications + Idempotency-Key", appIdempotent],
    ];
    const totals: Result[] = scenarios.map(([name]) => ({
      name,
      requests: 0,
      seconds: 0,
      latenciesMs: [],
      cpuMs: 0,
      peakMb: 0,
      failures: 0,
    }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, [name, target]] of scenarios.entries()) {
        const r = await measure(name, target, Math.ceil(REQUESTS / ROUNDS));
        const total = totals[i] as Result;
        total.requests += r.requests;
        total.seconds += r.seconds;
        total.latenciesMs.push(...r.latenciesMs);
        total.cpuMs += r.cpuMs;
        total.failures += r.failures;
        total.peakMb = Math.max(total.peakMb, r.peakMb);
      }
    }
    const base = totals[0] as Result;
    console.log(
      `\nidentity: POST /v1/applications, ${CONCURRENCY} concurrent clients, ${REQUESTS} requests per scenario in ${ROUNDS} interleaved rounds\n`,
    );
    console.table(totals.map((r) => row(r, base)));
    const peak = Math.max(...totals.slice(1).map((r) => r.peakMb));
    console.log(
      `RSS: service idle ${idle.service.toFixed(0)} MB, peak ${peak.toFixed(0)} MB; baseline idle ${idle.baseline.toFixed(0)} MB, peak ${base.peakMb.toFixed(0)} MB (targets < 120 / < 200 MB)`,
    );
    console.log(
      `load average at end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    const b = summary(base);
    const r1 = (x: number) => Math.round(x * 10) / 10;
    const rows: BenchRow[] = totals.slice(1).flatMap((r) => {
      const s = summary(r);
      const scenario = `${r.name}, ${CONCURRENCY} clients`;
      return [
        {
          scenario,
          metric: "throughput",
          value: Math.round(s.rps),
          unit: "req/s",
          baseline: Math.round(b.rps),
        },
        { scenario, metric: "p50", value: r1(s.p50), unit: "ms", baseline: r1(b.p50) },
        { scenario, metric: "p99", value: r1(s.p99), unit: "ms", baseline: r1(b.p99) },
        {
          scenario,
          metric: "server CPU per request",
          value: Math.round(s.cpuUs),
          unit: "µs",
          baseline: Math.round(b.cpuUs),
        },
        ...(r.failures + base.failures > 0
          ? [
              {
                scenario,
                metric: "failed requests",
                value: r.failures,
                unit: "responses",
                baseline: base.failures,
                target: "0",
                met: r.failures === 0,
              },
            ]
          : []),
      ];
    });
    rows.push(
      ...memoryRows("identity process (main.ts)", {
        idleMb: idle.service,
        baselineIdleMb: idle.baseline,
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
