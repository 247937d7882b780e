/**
 * What a list load does to V8's collector in the vacancies service: its bundle (src/main.ts) as in
 * production (@svc/runtime's NODE_FLAGS, the chart's memory limit) with `--trace-gc-nvp`, loaded by
 * the benchmark client on one path, and per young collection (scavenge) what survived it and what
 * was promoted to the old generation, how often a full Mark-Compact ran and what it cost (its
 * pause, and the marking done on helper threads), the peak RSS split into the process's own
 * memory and the node binary's pages, the service's CPU per request, and how many of the slow
 * responses (over 1.5x the median) completed in the 400 ms before a Mark-Compact, beside how much
 * of the run those windows cover (the marking before one takes the helper threads' CPU from
 * MariaDB and the load generator). What it showed about the production node flags:
 * docs/decisions/process-runtime-settings.md. Against legacy_bench, seeded by read-bench.ts.
 *
 *   node services/vacancies/bench/gc-trace.ts [--path /v1/vacancies?per_page=100]
 *     [--connections 32] [--seconds 5]
 *     [--node-args "--max-semi-space-size=16"]   (replaces NODE_FLAGS)
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  closedLoopLoad,
  processCpuMs,
  processMemory,
  startServiceUnderBench,
  benchMemoryLimit,
} from "@svc/bench";
import { build } from "@svc/build";
import { entryArgs } from "@svc/manifest";
import { NODE_FLAGS, RUNTIME_ENV } from "@svc/runtime";

const { values: args } = parseArgs({
  options: {
    path: { type: "string", default: "/v1/vacancies?per_page=100" },
    connections: { type: "string", default: "32" },
    seconds: { type: "string", default: "5" },
    "node-args": { type: "string" },
    url: { type: "string", default: "mysql://root@127.0.0.1:3306/legacy_bench" },
  },
});
const nodeArgs =
  args["node-args"] === undefined ? [...NODE_FLAGS] : args["node-args"].split(" ").filter(Boolean);
const root = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * One `--trace-gc-nvp` line: `pause=1.2 mutator=3.4 gc=s … promoted=123 …`, and when it arrived
 * (performance.now()).
 */
type GcLine = Record<string, string> & { arrivedAt: number };
const parse = (line: string): GcLine => ({
  ...Object.fromEntries(
    line
      .split(/\s+/)
      .map((pair) => pair.split("="))
      .filter((pair) => pair.length === 2),
  ),
  arrivedAt: performance.now(),
});

/**
 * Of the responses slower than 1.5x the median, the share that completed within `beforeMs` before
 * a Mark-Compact (up to 50 ms after it), and the share of the run those windows cover: the first
 * far above the second means the slow responses come with the full collections.
 */
function slowNearMarkCompacts(
  result: { latencies: number[]; starts: number[]; elapsedMs: number },
  markCompactsAt: number[],
  median: number,
  beforeMs = 400,
) {
  const windows = markCompactsAt.map(
    (at) => [Math.max(0, at - beforeMs), Math.min(result.elapsedMs, at + 50)] as const,
  );
  const inWindow = (t: number) => windows.some(([from, to]) => t >= from && t <= to);
  const slow = result.latencies.flatMap((latency, i) =>
    latency > 1.5 * median ? [result.starts[i]! + latency] : [],
  );
  let covered = 0;
  let reach = 0;
  for (const [from, to] of windows) {
    covered += Math.max(0, to - Math.max(from, reach));
    reach = Math.max(reach, to);
  }
  return {
    slow: slow.length,
    nearShare: slow.length ? slow.filter(inWindow).length / slow.length : 0,
    coveredShare: covered / result.elapsedMs,
  };
}
const mean = (lines: GcLine[], key: string) =>
  lines.reduce((sum, l) => sum + Number(l[key] ?? 0), 0) / Math.max(1, lines.length);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

/**
 * The largest RSS, and its anonymous and file-backed parts, seen while `during` runs (sampled every
 * 20 ms), in MB.
 */
async function peakRss<T>(
  pid: number,
  during: Promise<T>,
): Promise<{ result: T; rss: number; anon: number; file: number }> {
  const peak = { rss: 0, anon: 0, file: 0 };
  const timer = setInterval(() => {
    const memory = processMemory(pid);
    if (!memory) return;
    peak.rss = Math.max(peak.rss, memory.rssMb);
    peak.anon = Math.max(peak.anon, memory.anonMb);
    peak.file = Math.max(peak.file, memory.fileMb);
  }, 20);
  try {
    return { result: await during, ...peak };
  } finally {
    clearInterval(timer);
  }
}

let gcLines: GcLine[] | undefined;
await build();
const service = await startServiceUnderBench({
  root,
  entry: "services/vacancies/src/main.ts",
  args: [
    "--trace-gc-nvp",
    ...nodeArgs,
    ...entryArgs("services/vacancies/src/main.ts", { from: "bundle" }),
  ],
  env: { ...RUNTIME_ENV, LEGACY_DATABASE_URL: args.url },
  keep: /change detection pass done/,
  onLine: (line) => {
    if (gcLines && line.includes("pause=")) gcLines.push(parse(line));
  },
  ...benchMemoryLimit("vacancies"),
});
try {
  await service.process.waitForLine(/change detection pass done/, 300_000);
  const headers = {
    authorization: `Bearer ${await service.mint({ scope: "vacancies:read" })}`,
    accept: "application/json",
  };
  const load = (ms: number) =>
    closedLoopLoad(service.origin, () => ({ path: args.path, headers }), {
      connections: Number(args.connections),
      durationMs: ms,
    });
  await load(3_000); // warm-up: JIT, pools, the collector's own sizing
  gcLines = [];
  const cpuBefore = processCpuMs(service.process.pid);
  const { result, rss, anon, file } = await peakRss(
    service.process.pid,
    load(Number(args.seconds) * 1000),
  );
  const cpuPerRequestUs =
    ((processCpuMs(service.process.pid) - cpuBefore) * 1000) / result.latencies.length;
  const seconds = result.elapsedMs / 1000;
  const sorted = [...result.latencies].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const scavenges = gcLines.filter((l) => l.gc === "s");
  const fulls = gcLines.filter((l) => l.gc === "mc");
  const near = slowNearMarkCompacts(
    result,
    fulls.map((l) => l.arrivedAt - result.startedAt),
    at(0.5),
  );
  process.stdout.write(
    [
      `node flags: ${nodeArgs.join(" ") || "(none)"}; ${args.path}, ${args.connections} connections, ${seconds.toFixed(1)} s`,
      `requests: ${(result.latencies.length / seconds).toFixed(0)}/s, p50 ${at(0.5).toFixed(1)} ms, p90 ${at(0.9).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, max ${at(1).toFixed(1)} ms; service CPU ${cpuPerRequestUs.toFixed(0)} µs a request`,
      `scavenges: ${(scavenges.length / seconds).toFixed(0)}/s, each: ${mb(mean(scavenges, "allocated"))} allocated since the last, ${mb(mean(scavenges, "new_space_survived"))} survived, ${mb(mean(scavenges, "promoted"))} promoted, pause ${mean(scavenges, "pause").toFixed(2)} ms`,
      `mark-compacts: ${(fulls.length / seconds).toFixed(1)}/s, each: pause ${mean(fulls, "pause").toFixed(1)} ms, marking on helper threads ${mean(fulls, "background.mark").toFixed(0)} ms, heap ${mb(mean(fulls, "start_object_size"))} → ${mb(mean(fulls, "end_object_size"))}`,
      `slow responses (> 1.5x p50): ${near.slow}, ${(100 * near.nearShare).toFixed(0)} % of them completed in the 400 ms before a Mark-Compact; those windows cover ${(100 * near.coveredShare).toFixed(0)} % of the run`,
      `peak RSS: ${rss.toFixed(0)} MB (peak anonymous ${anon.toFixed(0)} MB, file-backed: the node binary's pages ${file.toFixed(0)} MB)`,
    ].join("\n") + "\n",
  );
} finally {
  await service.stop();
}
