/**
 * The benchmark rows (`npm run bench`): every bench hands its figures over as rows, the runner
 * (tools/bench.ts) keeps them for docs/performance/results.md. Plus the memory of the processes a
 * bench measures, read from /proc (Linux): a bench starts the service under test and its baseline
 * as their own processes, so each one's RSS is that process's alone.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { benchEnv } from "./config.ts";

export interface BenchRow {
  /** What was measured, e.g. "list page 1, per_page=100, 32 conns". */
  scenario: string;
  /** e.g. "throughput", "p50", "p99", "peak RSS", "idle RSS". */
  metric: string;
  value: number;
  /** e.g. "req/s", "ms", "MB". */
  unit: string;
  /** The same metric of the bare baseline measured in the same run. */
  baseline?: number;
  /** The target in words, e.g. "< 100 ms" or "≥ 60% of baseline". */
  target?: string;
  met?: boolean;
  /**
   * Where on a curve the row was measured (e.g. the offered load), in `xUnit`: a scenario whose
   * rows all have one is plotted as lines over x instead of bars.
   */
  x?: number;
  xUnit?: string;
}

export interface RecordedBenchRow extends BenchRow {
  bench: string;
}

/**
 * Appends `rows` as JSON lines to the file named by BENCH_RESULTS_FILE (set by tools/bench.ts for
 * each bench it runs); does nothing when it is not set, so a bench run by hand only prints.
 */
export function recordBenchRows(
  bench: string,
  rows: Array<{
    scenario: string;
    metric: string;
    value: number;
    unit: string;
    baseline?: number;
    target?: string;
    met?: boolean;
    x?: number;
    xUnit?: string;
  }>,
): void {
  const file = benchEnv.BENCH_RESULTS_FILE;
  if (!file || rows.length === 0) return;
  appendFileSync(file, rows.map((row) => `${JSON.stringify({ bench, ...row })}\n`).join(""));
}

/** Every row a results file holds, in the order recorded; a torn last line is skipped. */
export function readBenchRows(file: string): RecordedBenchRow[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const rows: RecordedBenchRow[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const row = JSON.parse(line) as RecordedBenchRow;
      if (
        typeof row.bench === "string" &&
        typeof row.metric === "string" &&
        typeof row.value === "number"
      )
        rows.push(row);
    } catch {
      // a line cut short by a crashed bench
    }
  }
  return rows;
}

export interface ProcessMemory {
  /** Resident set size now (MB = 2^20 bytes). */
  rssMb: number;
  /** The highest resident set size since the process started (VmHWM, MB). */
  peakMb: number;
  /** Of the RSS: anonymous memory, the process's own (RssAnon: heap, stacks, malloc, V8 heap). */
  anonMb: number;
  /**
   * Of the RSS: file-backed pages (RssFile: mostly the node binary's code), shared with every other
   * process mapping them.
   */
  fileMb: number;
}

/** RSS of a running process from /proc/<pid>/status; null once it has exited (or off Linux). */
export function processMemory(pid: number): ProcessMemory | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return null;
  }
  const kb = (key: string) =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  const rss = kb("VmRSS");
  if (Number.isNaN(rss)) return null;
  return {
    rssMb: rss / 1024,
    peakMb: kb("VmHWM") / 1024,
    anonMb: kb("RssAnon") / 1024,
    fileMb: kb("RssFile") / 1024,
  };
}

/**
 * CPU time a process has used so far (user + system, ms), from /proc/<pid>/stat; NaN once it has
 * exited. Per request, it is robust to other processes competing for the machine, unlike latency.
 */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // After the command name (which may hold spaces), from field 3 on: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** USER_HZ: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * Samples a process's RSS every `intervalMs` (~100 ms) to find its peak over a window, e.g. a
 * load run: `reset()` when the window starts, `peak()` when it ends. VmHWM cannot do that, as it
 * also holds the start-up peak.
 */
export class MemorySampler {
  readonly #pid: number;
  readonly #timer: NodeJS.Timeout;
  #peakMb = 0;
  #lastMb = 0;

  constructor(pid: number, intervalMs = 100) {
    this.#pid = pid;
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), intervalMs);
    this.#timer.unref();
  }

  #sample(): number {
    const memory = processMemory(this.#pid);
    if (memory) {
      this.#lastMb = memory.rssMb;
      this.#peakMb = Math.max(this.#peakMb, memory.rssMb);
    }
    return this.#lastMb;
  }

  /** RSS now (MB), read on the spot; the last value seen if the process has gone. */
  current(): number {
    return this.#sample();
  }

  /** Starts a new window: the peak becomes the RSS now. */
  reset(): void {
    this.#peakMb = 0;
    this.#sample();
  }

  /** Highest RSS since the last reset (MB), including a reading taken now. */
  peak(): number {
    this.#sample();
    return this.#peakMb;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

/**
 * RSS once a process has settled after start-up or load: the median of `samples` readings
 * `intervalMs` apart (a lone allocation burst between two readings does not count).
 */
export async function settledRss(
  pid: number,
  options: { samples?: number; intervalMs?: number; settleMs?: number } = {},
): Promise<number> {
  if (options.settleMs) await new Promise((resolve) => setTimeout(resolve, options.settleMs));
  const readings: number[] = [];
  const samples = options.samples ?? 10;
  for (let i = 0; i < samples; i++) {
    const memory = processMemory(pid);
    if (memory) readings.push(memory.rssMb);
    if (i < samples - 1)
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 200));
  }
  readings.sort((a, b) => a - b);
  return readings[Math.floor(readings.length / 2)] ?? Number.NaN;
}

/**
 * How long a process has served nothing before its RSS counts as idle: longer than the idle heap
 * release (@svc/runtime's tuneProcess, called by every service's instrument.ts) needs to see a
 * quiet period and act.
 */
export const IDLE_SETTLE_MS = 12_000;

/**
 * The memory targets of every service process: resident set idle, and at the peak of a load
 * (docs/decisions/process-runtime-settings.md).
 */
export const MEMORY_TARGETS = { idleMb: 120, loadMb: 200 } as const;

/**
 * The rows of one measured process: idle RSS (target < 120 MB) and/or peak RSS under load
 * (< 200 MB).
 */
export function memoryRows(
  scenario: string,
  memory: { idleMb?: number; peakMb?: number; baselinePeakMb?: number; baselineIdleMb?: number },
): BenchRow[] {
  const rows: BenchRow[] = [];
  const round = (mb: number) => Math.round(mb * 10) / 10;
  if (memory.idleMb !== undefined) {
    rows.push({
      scenario,
      metric: "idle RSS",
      value: round(memory.idleMb),
      unit: "MB",
      ...(memory.baselineIdleMb !== undefined ? { baseline: round(memory.baselineIdleMb) } : {}),
      target: `< ${MEMORY_TARGETS.idleMb} MB`,
      met: memory.idleMb < MEMORY_TARGETS.idleMb,
    });
  }
  if (memory.peakMb !== undefined) {
    rows.push({
      scenario,
      metric: "peak RSS under load",
      value: round(memory.peakMb),
      unit: "MB",
      ...(memory.baselinePeakMb !== undefined ? { baseline: round(memory.baselinePeakMb) } : {}),
      target: `< ${MEMORY_TARGETS.loadMb} MB`,
      met: memory.peakMb < MEMORY_TARGETS.loadMb,
    });
  }
  return rows;
}

export interface BenchProcess {
  child: ChildProcess;
  pid: number;
  /** RSS sampled every 100 ms from the start. */
  memory: MemorySampler;
  /**
   * Lines of stdout (and stderr) seen so far matching `keep` (see startBenchProcess), the last 200.
   */
  kept(): string[];
  /**
   * Resolves with the first line (from now on, or already kept) that matches, or rejects after
   * `timeoutMs` or when the process exits.
   */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
  /** SIGTERM, SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
  /** The memory limit it runs under (bytes), or null: unconstrained (see startBenchProcess). */
  memoryLimit: number | null;
}

const CGROUP_V1_MEMORY = "/sys/fs/cgroup/memory";
let cgroups = 0;

/**
 * A cgroup (v1 memory controller) limited to `bytes`, as a Kubernetes memory limit makes for a
 * pod's container; null where this machine does not let us create one (not root, cgroup v2 only).
 * Node sizes V8's heap from the limit it finds at start-up, so a process measured inside it grows
 * its heap as in the pod, not as on a host with all of this machine's memory
 * (docs/decisions/bench-harness.md).
 */
function memoryCgroup(bytes: number): { procs: string; remove: () => void } | null {
  const dir = `${CGROUP_V1_MEMORY}/bench-${process.pid}-${++cgroups}`;
  try {
    mkdirSync(dir);
    writeFileSync(`${dir}/memory.limit_in_bytes`, String(bytes));
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // never created
    }
    return null;
  }
  return {
    procs: `${dir}/cgroup.procs`,
    remove: () => {
      try {
        rmdirSync(dir);
      } catch {
        // a process still in it; the machine's next boot clears it
      }
    },
  };
}

/**
 * Runs a server under test as its own process on this Node (`args`: node flags, entry, its
 * arguments). Its output is read line by line so a busy server never blocks on a full pipe;
 * lines matching `keep` are remembered for waitForLine, and every line goes to `onLine` (e.g. a
 * `--trace-gc-nvp` line per collection, more than `kept` holds).
 */
export function startBenchProcess(
  args: string[],
  options: {
    env: Record<string, string | undefined>;
    cwd?: string;
    keep?: RegExp;
    memoryLimitBytes?: number;
    onLine?: (line: string) => void;
  },
): BenchProcess {
  const cgroup =
    options.memoryLimitBytes === undefined ? null : memoryCgroup(options.memoryLimitBytes);
  // In a cgroup from its first instruction: the shell joins it, then becomes node (same pid).
  const child = cgroup
    ? spawn(
        "/bin/sh",
        ["-c", 'echo $$ > "$0" && exec "$@"', cgroup.procs, process.execPath, ...args],
        { env: options.env, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] },
      )
    : spawn(process.execPath, args, {
        env: options.env,
        cwd: options.cwd,
        stdio: ["ignore", "pipe", "pipe"],
      });
  if (child.pid === undefined) throw new Error(`could not start ${args.join(" ")}`);
  const kept: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  const onLine = (line: string) => {
    options.onLine?.(line);
    for (const w of [...waiters])
      if (w.pattern.test(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    if (options.keep?.test(line) || /error|fatal|Error:/.test(line)) {
      kept.push(line);
      if (kept.length > 200) kept.shift();
    }
  };
  for (const stream of [child.stdout, child.stderr])
    if (stream) createInterface({ input: stream }).on("line", onLine);
  const exited = once(child, "exit");
  if (cgroup) void exited.then(() => cgroup.remove());
  const memory = new MemorySampler(child.pid);
  return {
    child,
    pid: child.pid,
    memory,
    memoryLimit: cgroup ? options.memoryLimitBytes! : null,
    kept: () => [...kept],
    waitForLine: (pattern, timeoutMs) => {
      const seen = kept.find((line) => pattern.test(line));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = { pattern, resolve: (line: string) => (clearTimeout(timer), resolve(line)) };
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `no line matching ${pattern} within ${timeoutMs} ms; last lines:\n${kept.slice(-20).join("\n")}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push(waiter);
        void exited.then(
          () => (
            clearTimeout(timer),
            reject(
              new Error(
                `process exited (${child.exitCode ?? child.signalCode}) before a line matching ${pattern}; last lines:\n${kept.slice(-20).join("\n")}`,
              ),
            )
          ),
        );
      });
    },
    stop: async (graceMs = 10_000) => {
      memory.stop();
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
