/**
 * What a list load does to V8's collector in the vacancies service: its bundle (src/main.ts) as in
 * production (tools/stack.ts NODE_FLAGS, the chart's memory limit) with `--trace-gc-nvp`, loaded by
 * the benchmark client on one path, and per young collection (scavenge) what survived it and what
 * was promoted to the old generation, how often a full Mark-Compact ran and what it cost (its
 * pause, and the marking done on helper threads), and the peak RSS split into the process's own
 * memory and the node binary's pages. How the `--no-allocation-site-pretenuring` flag was found and
 * checked (README "Benchmarks"). Against legacy_bench, seeded by read-bench.ts.
 *
 *   node services/vacancies/bench/gc-trace.ts [--path /v1/vacancies?per_page=100] [--connections 32]
 *     [--seconds 5] [--node-args "--max-semi-space-size=16"]   (replaces NODE_FLAGS)
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { closedLoopLoad, processMemory, startServiceUnderBench } from "@svc/testing";
import { build } from "../../../tools/build.ts";
import { benchMemoryLimit } from "../../../tools/chart-limits.ts";
import { entryArgs, NODE_FLAGS, RUNTIME_ENV } from "../../../tools/stack.ts";

const { values: args } = parseArgs({
  options: {
    path: { type: "string", default: "/v1/vacancies?per_page=100" },
    connections: { type: "string", default: "32" },
    seconds: { type: "string", default: "5" },
    "node-args": { type: "string" },
    url: { type: "string", default: "mysql://root@127.0.0.1:3306/legacy_bench" },
  },
});
const nodeArgs = args["node-args"] === undefined ? [...NODE_FLAGS] : args["node-args"].split(" ").filter(Boolean);
const root = fileURLToPath(new URL("../../..", import.meta.url));

/** One `--trace-gc-nvp` line: `pause=1.2 mutator=3.4 gc=s … promoted=123 …`. */
type GcLine = Record<string, string>;
const parse = (line: string): GcLine => Object.fromEntries(line.split(/\s+/).map((pair) => pair.split("=")).filter((pair) => pair.length === 2));
const mean = (lines: GcLine[], key: string) => lines.reduce((sum, l) => sum + Number(l[key] ?? 0), 0) / Math.max(1, lines.length);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

/** The largest RSS, and its anonymous and file-backed parts, seen while `during` runs (sampled every 20 ms), in MB. */
async function peakRss<T>(pid: number, during: Promise<T>): Promise<{ result: T; rss: number; anon: number; file: number }> {
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
  args: ["--trace-gc-nvp", ...nodeArgs, ...entryArgs("services/vacancies/src/main.ts", { from: "bundle" })],
  env: { ...RUNTIME_ENV, LEGACY_DATABASE_URL: args.url },
  keep: /change detection pass done/,
  onLine: (line) => {
    if (gcLines && line.includes("pause=")) gcLines.push(parse(line));
  },
  ...benchMemoryLimit("vacancies"),
});
try {
  await service.process.waitForLine(/change detection pass done/, 300_000);
  const headers = { authorization: `Bearer ${await service.mint({ scope: "vacancies:read" })}`, accept: "application/json" };
  const load = (ms: number) => closedLoopLoad(service.origin, () => ({ path: args.path, headers }), { connections: Number(args.connections), durationMs: ms });
  await load(3_000); // warm-up: JIT, pools, the collector's own sizing
  gcLines = [];
  const { result, rss, anon, file } = await peakRss(service.process.pid, load(Number(args.seconds) * 1000));
  const seconds = result.elapsedMs / 1000;
  const sorted = [...result.latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const scavenges = gcLines.filter((l) => l.gc === "s");
  const fulls = gcLines.filter((l) => l.gc === "mc");
  process.stdout.write(
    [
      `node flags: ${nodeArgs.join(" ") || "(none)"}; ${args.path}, ${args.connections} connections, ${seconds.toFixed(1)} s`,
      `requests: ${(result.latencies.length / seconds).toFixed(0)}/s, p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms`,
      `scavenges: ${(scavenges.length / seconds).toFixed(0)}/s, each: ${mb(mean(scavenges, "allocated"))} allocated since the last, ${mb(mean(scavenges, "new_space_survived"))} survived, ${mb(mean(scavenges, "promoted"))} promoted, pause ${mean(scavenges, "pause").toFixed(2)} ms`,
      `mark-compacts: ${(fulls.length / seconds).toFixed(1)}/s, each: pause ${mean(fulls, "pause").toFixed(1)} ms, marking on helper threads ${mean(fulls, "background.mark").toFixed(0)} ms, heap ${mb(mean(fulls, "start_object_size"))} → ${mb(mean(fulls, "end_object_size"))}`,
      `peak RSS: ${rss.toFixed(0)} MB (peak anonymous ${anon.toFixed(0)} MB, file-backed: the node binary's pages ${file.toFixed(0)} MB)`,
    ].join("\n") + "\n",
  );
} finally {
  await service.stop();
}
