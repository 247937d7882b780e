/**
 * Tracing overhead: the vacancies read API (list and single) with tracing off and on, measured in
 * the same run, alternating rounds. Both servers are the real app (bench-server.ts) preloaded with
 * the service's instrument.ts as in production, each in a process of its own; "on" sets the
 * standard OTEL_* variables: sampling at 100 % (always_on), OTLP/HTTP protobuf to a local sink
 * that counts the spans it receives, a batch queue large enough that none is dropped.
 *
 * The verdict is CPU per request of the whole server process (every thread: the app's, the
 * exporter's, libuv's crypto): on a machine shared with other work, wall-clock throughput also
 * measures the neighbours, CPU time measures the server.
 *
 *   npm exec -c 'node services/vacancies/bench/tracing-bench.ts' \
 *     [-- --seconds 2 --rounds 8 --connections 16 --only single --sampler always_off]
 *
 * Target: tracing costs under 15 % of throughput at 100 % sampling
 * (docs/decisions/tracing-cost.md).
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { fork, type ChildProcess } from "node:child_process";
import { Worker } from "node:worker_threads";
import { Pool } from "undici";
import { openServerConnection, seedDatabase } from "@svc/legacy";
import { recordBenchRows } from "@svc/bench";
import { dateIn } from "@svc/time";

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "2" },
    rounds: { type: "string", default: "8" },
    connections: { type: "string", default: "16" },
    url: { type: "string", default: "mysql://root@127.0.0.1:3306" },
    // always_off keeps the instrumentation but records nothing: isolates patching from recording.
    sampler: { type: "string", default: "always_on" },
    only: { type: "string" },
    host: { type: "string" },
  },
});
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
const CONNECTIONS = Number(args.connections);
// The read bench's data set (read-bench.ts): the same database, seeded once for both.
const DATABASE = "legacy_bench";
const SCALE = 50;
const TARGET_COST = 0.15;
const out = (line = "") => process.stdout.write(`${line}\n`);

async function ensureBenchData(): Promise<string> {
  const connection = await openServerConnection(args.url);
  try {
    const options = { seed: 1, scale: SCALE, today: dateIn("Europe/Brussels", Date.now()) };
    let result = await seedDatabase(connection, DATABASE, options, "if-absent", out);
    if (result.options.scale !== SCALE)
      result = await seedDatabase(connection, DATABASE, options, "replace", out);
    out(
      `data: ${DATABASE} ${result.action} (seed ${result.options.seed}, scale ${result.options.scale})`,
    );
  } finally {
    await connection.end();
  }
  const url = new URL(args.url);
  url.pathname = `/${DATABASE}`;
  return url.toString();
}

/**
 * Spans in an OTLP ExportTraceServiceRequest (protobuf): resource_spans(1) → scope_spans(2) →
 * spans(2).
 */
function countSpans(buf: Uint8Array): number {
  const nested = (b: Uint8Array, field: number): Uint8Array[] => {
    const found: Uint8Array[] = [];
    let i = 0;
    const varint = () => {
      let v = 0;
      for (let shift = 0; ; shift += 7) {
        const byte = b[i++]!;
        v += (byte & 0x7f) * 2 ** shift;
        if (byte < 0x80) return v;
      }
    };
    while (i < b.length) {
      const tag = varint();
      const wire = tag & 7;
      if (wire === 0) varint();
      else if (wire === 1) i += 8;
      else if (wire === 5) i += 4;
      else if (wire === 2) {
        const length = varint();
        if (Math.floor(tag / 8) === field) found.push(b.subarray(i, i + length));
        i += length;
      } else throw new Error(`unexpected protobuf wire type ${wire}`);
    }
    return found;
  };
  return nested(buf, 1)
    .flatMap((rs) => nested(rs, 2))
    .reduce((n, ss) => n + nested(ss, 2).length, 0);
}

/** The OTLP collector stand-in: accepts every export, counts spans, answers at once. */
async function startSink(): Promise<{ endpoint: string; spans(): number; close(): Promise<void> }> {
  let spans = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req
      .on("data", (c: Buffer) => chunks.push(c))
      .on("end", () => {
        if (req.url === "/v1/traces") spans += countSpans(Buffer.concat(chunks));
        res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

type Target = { name: "off" | "on"; origin: string; token: string; host: ChildProcess };

const INSTRUMENT = fileURLToPath(new URL("../src/instrument.ts", import.meta.url));
const SELF = fileURLToPath(import.meta.url);

/**
 * `--host <legacyUrl>`: this file as the server process. The app runs in a worker thread
 * (bench-server.ts is a worker entry) preloaded with instrument.ts; the process answers "cpu"
 * with its CPU time so far, all threads included.
 */
async function host(legacyUrl: string): Promise<void> {
  const worker = new Worker(new URL("./bench-server.ts", import.meta.url), {
    workerData: { kind: "service", legacyUrl },
    execArgv: ["--import", INSTRUMENT],
  });
  const ready = await new Promise<{ port: number; token: string }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  process.send?.({ ready });
  process.on("message", (m: string) => {
    if (m === "cpu") {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpu: user + system });
    } else if (m === "stop") {
      void worker.terminate().then(() => process.exit(0));
    }
  });
}

async function startTarget(
  name: Target["name"],
  legacyUrl: string,
  sinkEndpoint: string,
): Promise<Target> {
  // --sampler none: both servers untraced (an A/A run: how much two identical servers differ).
  const otel: Record<string, string> =
    name === "on" && args.sampler !== "none"
      ? {
          OTEL_EXPORTER_OTLP_ENDPOINT: sinkEndpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
          OTEL_TRACES_SAMPLER: args.sampler,
          OTEL_BSP_SCHEDULE_DELAY: "500",
          OTEL_BSP_MAX_QUEUE_SIZE: "100000",
          OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "2048",
        }
      : {};
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ENVIRONMENT: "sandbox",
    ...otel,
  };
  for (const key of Object.keys(env))
    if (key.startsWith("OTEL_") && !(key in otel)) delete env[key];
  const child = fork(SELF, ["--host", legacyUrl], {
    env,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const { ready } = await new Promise<{ ready: { port: number; token: string } }>(
    (resolve, reject) => {
      child.once("message", (m) => resolve(m as { ready: { port: number; token: string } }));
      child.once("exit", (code) => reject(new Error(`the ${name} server exited (${code})`)));
    },
  );
  return { name, origin: `http://127.0.0.1:${ready.port}`, token: ready.token, host: child };
}

/** CPU time of the server process so far (user + system over all its threads, µs). */
function cpuOf(target: Target): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      const cpu = (m as { cpu?: number }).cpu;
      if (cpu === undefined) return;
      target.host.off("message", onMessage);
      resolve(cpu);
    };
    target.host.on("message", onMessage);
    target.host.send("cpu");
  });
}

type Sample = {
  requests: number;
  errors: number;
  elapsedMs: number;
  latencies: number[];
  cpuMicros: number;
};

const WARM_UP_REQUESTS = 3_000;
const WARM_UP_MS = 15_000;

/**
 * CONNECTIONS loops, each sending its next request as soon as the previous body is read, for `ms`
 * (or `maxRequests`).
 */
async function load(
  target: Target,
  pathFor: () => string,
  ms: number,
  maxRequests = Infinity,
): Promise<Sample> {
  const cpuBefore = await cpuOf(target);
  const pool = new Pool(target.origin, { connections: CONNECTIONS, pipelining: 1 });
  const headers = { authorization: `Bearer ${target.token}`, accept: "application/json" };
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const end = started + ms;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end && latencies.length < maxRequests) {
        const t0 = performance.now();
        const res = await pool.request({ path: pathFor(), method: "GET", headers });
        await res.body.arrayBuffer();
        if (res.statusCode !== 200) errors += 1;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  await pool.close();
  return {
    requests: latencies.length,
    errors,
    elapsedMs,
    latencies,
    cpuMicros: (await cpuOf(target)) - cpuBefore,
  };
}

function summary(samples: Sample[]) {
  const requests = samples.reduce((n, s) => n + s.requests, 0);
  const elapsedMs = samples.reduce((n, s) => n + s.elapsedMs, 0);
  const sorted = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const cpuPerRequest = samples.reduce((n, s) => n + s.cpuMicros, 0) / Math.max(1, requests);
  return {
    requests,
    rps: requests / (elapsedMs / 1000),
    p50: at(0.5),
    p99: at(0.99),
    cpuPerRequest,
    errors: samples.reduce((n, s) => n + s.errors, 0),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function discover(target: Target): Promise<string[]> {
  const pool = new Pool(target.origin);
  const res = await pool.request({
    path: "/v1/vacancies?per_page=100&page=7",
    method: "GET",
    headers: { authorization: `Bearer ${target.token}` },
  });
  const body = (await res.body.json()) as { data: Array<{ uuid: string }> };
  await pool.close();
  return body.data.map((v) => v.uuid);
}

if (args.host !== undefined) await host(args.host);
else await main();

async function main(): Promise<void> {
  const legacyUrl = await ensureBenchData();
  const sink = await startSink();
  const targets = {
    off: await startTarget("off", legacyUrl, sink.endpoint),
    on: await startTarget("on", legacyUrl, sink.endpoint),
  };
  const uuids = await discover(targets.off);
  const pick = () => uuids[Math.floor(Math.random() * uuids.length)]!;
  const scenarios: Array<[string, () => string]> = [
    ["list page 1, per_page=100", () => "/v1/vacancies?per_page=100"],
    [
      "list random page, per_page=20",
      () => `/v1/vacancies?per_page=20&page=${1 + Math.floor(Math.random() * 200)}`,
    ],
    ["single", () => `/v1/vacancies/${pick()}`],
  ];

  out(
    `${CONNECTIONS} connections; ${ROUNDS} rounds of ${SECONDS}s per setting and scenario, alternating off/on; on = ${args.sampler} sampling, OTLP http/protobuf`,
  );
  out(
    "cpu/req: CPU time of the server process per request; cpu cost = 1 − off/on (median of the rounds), the throughput a CPU-bound server loses.",
  );
  out(
    "req/s: wall-clock throughput of the same runs, on/off the median of the rounds; on a machine shared with other work it also measures the neighbours.\n",
  );
  out(
    `${"scenario".padEnd(30)} ${"off req/s".padStart(9)} ${"on req/s".padStart(9)} ${"on/off".padStart(6)}  ${"off cpu/req".padStart(11)} ${"on cpu/req".padStart(10)} ${"cpu cost".padStart(8)}   ${"off p50/p99 ms".padStart(15)} ${"on p50/p99 ms".padStart(15)}  spans/req  errors`,
  );
  const rows: Parameters<typeof recordBenchRows>[1] = [];
  let worst = 0;
  const settle = () => new Promise((r) => setTimeout(r, 1_000)); // the last batch reaches the sink
  for (const [name, pathFor] of scenarios.filter(([n]) => !args.only || n.includes(args.only))) {
    const spansAtStart = sink.spans();
    // Warm-up (JIT, pools, caches) for both, the same number of requests each: on a busy machine a
    // fixed time would warm up whichever thread the scheduler favoured.
    await load(targets.off, pathFor, WARM_UP_MS, WARM_UP_REQUESTS);
    const warmUp = await load(targets.on, pathFor, WARM_UP_MS, WARM_UP_REQUESTS);
    const runs: Record<Target["name"], Sample[]> = { off: [], on: [] };
    const roundCosts: number[] = [];
    const roundRatios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating, starting with each setting in turn, so drift in the machine's load hits both;
      // each round compares two neighbouring runs, and the median round is reported.
      const order: Array<Target["name"]> = round % 2 === 0 ? ["off", "on"] : ["on", "off"];
      const pair: Partial<Record<Target["name"], Sample>> = {};
      for (const which of order)
        runs[which].push((pair[which] = await load(targets[which], pathFor, SECONDS * 1000)));
      const [a, b] = [summary([pair.off!]), summary([pair.on!])];
      roundCosts.push(1 - a.cpuPerRequest / b.cpuPerRequest);
      roundRatios.push(b.rps / a.rps);
    }
    await settle();
    const off = summary(runs.off);
    const on = summary(runs.on);
    // Every request the tracing-on server answered in this scenario, warm-up included.
    const spansPerRequest = (sink.spans() - spansAtStart) / (on.requests + warmUp.requests);
    const ratio = median(roundRatios);
    const cpuCost = median(roundCosts);
    worst = Math.max(worst, cpuCost);
    const ms = (x: number) => (x / 1000).toFixed(2);
    out(
      `${name.padEnd(30)} ${off.rps.toFixed(0).padStart(9)} ${on.rps.toFixed(0).padStart(9)} ${ratio.toFixed(2).padStart(6)}  ${`${ms(off.cpuPerRequest)} ms`.padStart(11)} ${`${ms(on.cpuPerRequest)} ms`.padStart(10)} ${`${(cpuCost * 100).toFixed(1)}%`.padStart(8)}   ${`${off.p50.toFixed(1)}/${off.p99.toFixed(1)}`.padStart(15)} ${`${on.p50.toFixed(1)}/${on.p99.toFixed(1)}`.padStart(15)}  ${spansPerRequest.toFixed(1).padStart(9)}  ${off.errors + on.errors}`,
    );
    rows.push(
      {
        scenario: `vacancies ${name}: CPU per request, tracing on (${args.sampler}) vs off`,
        metric: "CPU per request",
        value: Math.round(on.cpuPerRequest) / 1000,
        unit: "ms",
        baseline: Math.round(off.cpuPerRequest) / 1000,
        target: `cost < ${TARGET_COST * 100}% (on ≤ off / ${1 - TARGET_COST})`,
        met: cpuCost < TARGET_COST,
      },
      {
        scenario: `vacancies ${name}: throughput, tracing on (${args.sampler}) vs off`,
        metric: "throughput",
        value: Math.round(on.rps),
        unit: "req/s",
        baseline: Math.round(off.rps),
      },
      {
        scenario: `vacancies ${name}: p99, tracing on (${args.sampler}) vs off`,
        metric: "p99",
        value: Math.round(on.p99 * 10) / 10,
        unit: "ms",
        baseline: Math.round(off.p99 * 10) / 10,
      },
    );
  }
  out(
    `\nspans received by the sink: ${sink.spans()} (every span of every traced request: the batch queue drops none)`,
  );
  out(
    `worst CPU cost of tracing: ${(worst * 100).toFixed(1)}% (target < ${TARGET_COST * 100}%) ${worst < TARGET_COST ? "met" : "NOT met"}`,
  );
  recordBenchRows("tracing overhead", rows);

  for (const t of Object.values(targets)) {
    const exited = once(t.host, "exit");
    t.host.send("stop");
    await exited;
  }
  await sink.close();
}
