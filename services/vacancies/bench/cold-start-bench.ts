/**
 * Cold-start benchmark: the vacancies service restarted on a database it has already run on (a
 * deploy or a scale-up), loaded from the moment /readyz first answers 200 for 10 s, then the same
 * load again once warm, on the same process: random list pages of 100 at one fixed rate (half the
 * warm maximum wrk measures first), from the C open-loop generator, latency from each request's
 * intended send time. Each round restarts the service twice, without its start-up warm-up
 * (WARM_UP_MAX_MS=0) and with it.
 *
 *   npm exec -c 'node services/vacancies/bench/cold-start-bench.ts' [-- --rounds 2 --load 0.5]
 *
 * The service's CPU time per request in each window is reported beside the latencies: unlike them,
 * it hardly depends on what else the machine runs.
 *
 * Target: with the warm-up, cold p99 (the first 10 s after ready) within 2x of warm p99.
 */
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  benchMemoryLimit,
  openLoop,
  processCpuMs,
  recordBenchRows,
  runWrk,
  startServiceUnderBench,
  type BenchRow,
  type OpenLoopResult,
} from "@svc/bench";
import { build } from "@svc/build";
import { entryArgs } from "@svc/manifest";
import { NODE_FLAGS, RUNTIME_ENV } from "@svc/runtime";
import { ensureBenchData } from "./bench-data.ts";

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "2" },
    load: { type: "string", default: "0.5" },
    seconds: { type: "string", default: "10" },
    url: { type: "string", default: "mysql://root@127.0.0.1:3306" },
  },
});
const ROUNDS = Number(args.rounds);
const LOAD = Number(args.load);
const SECONDS = Number(args.seconds);
const CONNECTIONS = 32;
const BENCH = "vacancies cold start";
const ENTRY = "services/vacancies/src/main.ts";
const MODES = ["no warm-up", "warm-up"] as const;
type Mode = (typeof MODES)[number];
type Window = OpenLoopResult & { cpuUs: number };
const root = fileURLToPath(new URL("../../..", import.meta.url));
const out = (line = "") => process.stdout.write(`${line}\n`);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

const legacyUrl = await ensureBenchData(args.url, out);
out(`load average at start: ${load()}`);
await build();
const service = await startServiceUnderBench({
  root,
  entry: ENTRY,
  args: [...NODE_FLAGS, ...entryArgs(ENTRY, { from: "bundle" })],
  env: { ...RUNTIME_ENV, LEGACY_DATABASE_URL: legacyUrl },
  ...benchMemoryLimit("vacancies"),
  keep: /change detection pass done/,
  readyPollMs: 20,
  onLine: (line) => {
    if (/"msg":"warm-up/.test(line)) out(`  service: ${line}`);
  },
});

try {
  // The first pass over a fresh database is the baseline sweep of every vacancy: a restart finds
  // its state, as a deploy does.
  await service.process.waitForLine(/change detection pass done/, 300_000);
  const authorization = `Bearer ${await service.mint({ scope: "vacancies:read" })}`;
  const first = (await fetch(`${service.origin}/v1/vacancies?per_page=100`, {
    headers: { authorization },
  }).then((r) => r.json())) as { meta: { pagination: { total_pages: number } } };
  const pages = first.meta.pagination.total_pages;
  const paths = Array.from(
    { length: 4_000 },
    () => `/v1/vacancies?per_page=100&page=${1 + Math.floor(Math.random() * pages)}`,
  );
  const url = `${service.origin}/v1/vacancies`;
  const max = await runWrk({
    url,
    connections: CONNECTIONS,
    durationS: 5,
    paths,
    headers: { authorization },
  });
  const rate = Math.max(10, Math.round(max.rps * LOAD));
  out(
    `${pages} pages of 100; warm maximum ${max.rps.toFixed(0)} req/s (wrk, ${CONNECTIONS} connections); open loop at ${rate} req/s for ${SECONDS} s; load ${load()}\n`,
  );
  /** The open-loop run, and the service's CPU time per response meanwhile (µs). */
  const fixedRate = async () => {
    const before = processCpuMs(service.process.pid);
    const result = await openLoop({
      url,
      ratePerS: rate,
      durationS: SECONDS,
      connections: CONNECTIONS,
      paths,
      headers: { authorization },
    });
    const cpuUs =
      ((processCpuMs(service.process.pid) - before) * 1000) / Math.max(1, result.completed);
    return { ...result, cpuUs };
  };
  const results = Object.fromEntries(
    MODES.map((m) => [m, [] as Array<{ cold: Window; warm: Window; readyMs: number }>]),
  ) as Record<Mode, Array<{ cold: Window; warm: Window; readyMs: number }>>;
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of MODES) {
      const t0 = performance.now();
      await service.restart({ WARM_UP_MAX_MS: mode === "no warm-up" ? "0" : "10000" });
      const readyMs = performance.now() - t0;
      const cold = await fixedRate();
      const warm = await fixedRate();
      results[mode].push({ cold, warm, readyMs });
      out(
        `round ${round + 1} ${mode.padEnd(10)} ready ${readyMs.toFixed(0).padStart(6)} ms; cold p50/p99/max ${cold.p50.toFixed(1)}/${cold.p99.toFixed(1)}/${cold.max.toFixed(0)} ms, warm ${warm.p50.toFixed(1)}/${warm.p99.toFixed(1)}/${warm.max.toFixed(0)} ms; CPU/request cold ${cold.cpuUs.toFixed(0)} µs, warm ${warm.cpuUs.toFixed(0)} µs; errors ${cold.errors + warm.errors}; load ${load()}`,
      );
    }
  }
  const rows: BenchRow[] = [];
  out(
    `\n${"".padEnd(10)} ${"cold p99".padStart(9)} ${"warm p99".padStart(9)} ${"ratio".padStart(6)}  start to ready (ms)`,
  );
  for (const mode of MODES) {
    // The worst round of each: a cold start is judged by its bad case.
    const worst = results[mode].reduce((a, b) =>
      b.cold.p99 / b.warm.p99 > a.cold.p99 / a.warm.p99 ? b : a,
    );
    const ratio = worst.cold.p99 / worst.warm.p99;
    const readyMs = Math.max(...results[mode].map((r) => r.readyMs));
    out(
      `${mode.padEnd(10)} ${worst.cold.p99.toFixed(1).padStart(9)} ${worst.warm.p99.toFixed(1).padStart(9)} ${ratio.toFixed(2).padStart(6)}  ${results[mode].map((r) => r.readyMs.toFixed(0)).join(", ")}`,
    );
    const scenario = `list random page, ${rate} req/s (${Math.round(LOAD * 100)} % of warm max), first ${SECONDS} s after ready, ${mode}`;
    const errors = results[mode].reduce(
      (n, r) => n + r.cold.errors + r.warm.errors + r.cold.unfinished,
      0,
    );
    const non200 = results[mode].reduce(
      (n, r) =>
        n +
        r.cold.completed +
        r.warm.completed -
        (r.cold.statuses["200"] ?? 0) -
        (r.warm.statuses["200"] ?? 0),
      0,
    );
    rows.push(
      {
        scenario,
        metric: "p99 cold (baseline: warm)",
        value: round1(worst.cold.p99),
        unit: "ms",
        baseline: round1(worst.warm.p99),
        ...(mode === "warm-up" ? { target: "≤ 2× warm", met: ratio <= 2 } : {}),
      },
      {
        scenario,
        metric: "server CPU per request cold (baseline: warm)",
        value: Math.round(worst.cold.cpuUs),
        unit: "µs",
        baseline: Math.round(worst.warm.cpuUs),
      },
      { scenario, metric: "start to ready", value: Math.round(readyMs), unit: "ms" },
      {
        scenario,
        metric: "failed requests",
        value: errors + non200,
        unit: "requests",
        target: "0",
        met: errors + non200 === 0,
      },
    );
  }
  recordBenchRows(BENCH, rows);
  out(`load average at end: ${load()}`);
} finally {
  await service.stop();
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
