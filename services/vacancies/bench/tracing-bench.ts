/**
 * Tracing overhead: the vacancies read API (list and single) with tracing off and on, measured in
 * the same run, alternating rounds. Both servers are the real app (bench-server.ts) preloaded with
 * the service's instrument.ts as in production, each in a process of its own; "on" sets the
 * standard OTEL_* variables: sampling at 100 % (always_on), OTLP/HTTP protobuf to a local sink
 * that counts the spans it receives, a batch queue large enough that none is dropped.
 *
 * The verdict is CPU per request of the whole server process (every thread: the app's, the
 * exporter's, libuv's crypto): on a machine shared with other work, wall-clock throughput also
 * measures the neighbours, CPU time measures the server. The load is C, not a Node client on the
 * same cores: wrk (closed loop) for the rounds' throughput and CPU, then the open-loop generator at
 * half the off server's throughput, the same rate for both, for p50/p99
 * (docs/decisions/open-loop-load.md).
 *
 *   npm exec -c 'node services/vacancies/bench/tracing-bench.ts' \
 *     [-- --seconds 2 --rounds 8 --connections 16 --latency-seconds 5 --only single
 *         --sampler always_off]
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
import { openServerConnection, seedDatabase } from "@svc/sandbox";
import { openLoop, recordBenchRows, runWrk } from "@svc/bench";
import { dateIn } from "@svc/time";

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "2" },
    rounds: { type: "string", default: "8" },
    connections: { type: "string", default: "16" },
    "latency-seconds": { type: "string", default: "5" },
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
const LATENCY_S = Number(args["latency-seconds"]);
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
  cpuMicros: number;
};

const WARM_UP_REQUESTS = 3_000;
const WARM_UP_RATE = 300;
const LATENCY_SHARE = 0.5;
const headersOf = (target: Target) => ({
  authorization: `Bearer ${target.token}`,
  accept: "application/json",
});

/**
 * Warm-up (JIT, pools, caches): the same number of requests for each target, sent at a fixed rate
 * by the open loop; on a busy machine a fixed time would warm up whichever process the scheduler
 * favoured. Returns the requests the server answered (each connection's unmeasured first one too).
 */
async function warmUp(target: Target, paths: readonly string[]): Promise<number> {
  const r = await openLoop({
    url: target.origin,
    paths,
    headers: headersOf(target),
    ratePerS: WARM_UP_RATE,
    durationS: WARM_UP_REQUESTS / WARM_UP_RATE,
    connections: CONNECTIONS,
    drainS: 30,
  });
  return r.completed + CONNECTIONS;
}

/** wrk's CONNECTIONS closed loops for SECONDS (the paths in turn), and the server's CPU meanwhile. */
async function load(target: Target, paths: readonly string[]): Promise<Sample> {
  const cpuBefore = await cpuOf(target);
  const r = await runWrk({
    url: target.origin,
    paths,
    headers: headersOf(target),
    connections: CONNECTIONS,
    durationS: SECONDS,
  });
  return {
    requests: r.requests,
    errors: r.badStatuses + r.errors,
    elapsedMs: r.durationS * 1000,
    cpuMicros: (await cpuOf(target)) - cpuBefore,
  };
}

/** Latency at a fixed rate (open loop, coordinated omission corrected). */
function latencyAt(target: Target, paths: readonly string[], ratePerS: number) {
  return openLoop({
    url: target.origin,
    paths,
    headers: headersOf(target),
    ratePerS,
    durationS: LATENCY_S,
    connections: CONNECTIONS,
  });
}

function summary(samples: Sample[]) {
  const requests = samples.reduce((n, s) => n + s.requests, 0);
  const elapsedMs = samples.reduce((n, s) => n + s.elapsedMs, 0);
  const cpuPerRequest = samples.reduce((n, s) => n + s.cpuMicros, 0) / Math.max(1, requests);
  return {
    requests,
    rps: requests / (elapsedMs / 1000),
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
  const res = await fetch(`${target.origin}/v1/vacancies?per_page=100&page=7`, {
    headers: headersOf(target),
  });
  const body = (await res.json()) as { data: Array<{ uuid: string }> };
  return body.data.map((v) => v.uuid);
}

/** `n` paths drawn by `draw`: wrk and the open loop send them in turn. */
const drawn = (n: number, draw: () => string) => Array.from({ length: n }, draw);

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
  const scenarios: Array<[string, string[]]> = [
    ["list page 1, per_page=100", ["/v1/vacancies?per_page=100"]],
    [
      "list random page, per_page=20",
      drawn(1_000, () => `/v1/vacancies?per_page=20&page=${1 + Math.floor(Math.random() * 200)}`),
    ],
    ["single", drawn(1_000, () => `/v1/vacancies/${pick()}`)],
  ];

  out(
    `${CONNECTIONS} connections; ${ROUNDS} rounds of ${SECONDS}s per setting and scenario, alternating off/on; on = ${args.sampler} sampling, OTLP http/protobuf`,
  );
  out(
    "cpu/req: CPU time of the server process per request; cpu cost = 1 − off/on (median of the rounds), the throughput a CPU-bound server loses.",
  );
  out(
    "req/s: wall-clock throughput of the same runs (wrk, closed loop), on/off the median of the rounds; on a machine shared with other work it also measures the neighbours.",
  );
  out(
    `p50/p99: open loop at ${LATENCY_SHARE * 100} % of the off server's throughput, the same rate for both, ${LATENCY_S} s each.\n`,
  );
  out(
    `${"scenario".padEnd(30)} ${"off req/s".padStart(9)} ${"on req/s".padStart(9)} ${"on/off".padStart(6)}  ${"off cpu/req".padStart(11)} ${"on cpu/req".padStart(10)} ${"cpu cost".padStart(8)}   ${"off p50/p99 ms".padStart(15)} ${"on p50/p99 ms".padStart(15)}  spans/req  errors`,
  );
  const rows: Parameters<typeof recordBenchRows>[1] = [];
  let worst = 0;
  const settle = () => new Promise((r) => setTimeout(r, 1_000)); // the last batch reaches the sink
  for (const [name, paths] of scenarios.filter(([n]) => !args.only || n.includes(args.only))) {
    const spansAtStart = sink.spans();
    await warmUp(targets.off, paths);
    let onAnswered = await warmUp(targets.on, paths);
    const runs: Record<Target["name"], Sample[]> = { off: [], on: [] };
    const roundCosts: number[] = [];
    const roundRatios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating, starting with each setting in turn, so drift in the machine's load hits both;
      // each round compares two neighbouring runs, and the median round is reported.
      const order: Array<Target["name"]> = round % 2 === 0 ? ["off", "on"] : ["on", "off"];
      const pair: Partial<Record<Target["name"], Sample>> = {};
      for (const which of order)
        runs[which].push((pair[which] = await load(targets[which], paths)));
      const [a, b] = [summary([pair.off!]), summary([pair.on!])];
      roundCosts.push(1 - a.cpuPerRequest / b.cpuPerRequest);
      roundRatios.push(b.rps / a.rps);
    }
    const off = summary(runs.off);
    const on = summary(runs.on);
    const rate = Math.max(1, Math.round(off.rps * LATENCY_SHARE));
    const offLatency = await latencyAt(targets.off, paths, rate);
    const onLatency = await latencyAt(targets.on, paths, rate);
    await settle();
    // Every request the tracing-on server answered in this scenario, warm-up included (wrk stops
    // with up to CONNECTIONS requests in flight, answered but not counted: under 1 % of a round).
    onAnswered += on.requests + onLatency.completed + CONNECTIONS;
    const spansPerRequest = (sink.spans() - spansAtStart) / onAnswered;
    const latencyErrors = [offLatency, onLatency].reduce(
      (n, r) =>
        n +
        r.errors +
        r.unfinished +
        Object.entries(r.statuses).reduce((m, [code, c]) => m + (code === "200" ? 0 : c), 0),
      0,
    );
    const ratio = median(roundRatios);
    const cpuCost = median(roundCosts);
    worst = Math.max(worst, cpuCost);
    const ms = (x: number) => (x / 1000).toFixed(2);
    out(
      `${name.padEnd(30)} ${off.rps.toFixed(0).padStart(9)} ${on.rps.toFixed(0).padStart(9)} ${ratio.toFixed(2).padStart(6)}  ${`${ms(off.cpuPerRequest)} ms`.padStart(11)} ${`${ms(on.cpuPerRequest)} ms`.padStart(10)} ${`${(cpuCost * 100).toFixed(1)}%`.padStart(8)}   ${`${offLatency.p50.toFixed(1)}/${offLatency.p99.toFixed(1)}`.padStart(15)} ${`${onLatency.p50.toFixed(1)}/${onLatency.p99.toFixed(1)}`.padStart(15)}  ${spansPerRequest.toFixed(1).padStart(9)}  ${off.errors + on.errors + latencyErrors}`,
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
        metric: `p99 at ${rate} req/s (open loop)`,
        value: Math.round(onLatency.p99 * 10) / 10,
        unit: "ms",
        baseline: Math.round(offLatency.p99 * 10) / 10,
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
