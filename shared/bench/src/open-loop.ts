/**
 * The open-loop, fixed-arrival-rate load generator (native/open-loop.c): requests sent at a fixed
 * rate whatever the server does, each one's latency measured from its intended send time, so a
 * stall is charged to every request that should have gone out during it (coordinated omission
 * corrected). It is C, built on first use with gcc into node_modules/.cache/svc-bench/, so the
 * generator takes a few percent of a core instead of a Node process's share of the two.
 * Why: docs/decisions/open-loop-load.md.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

const SOURCE = fileURLToPath(new URL("../native/open-loop.c", import.meta.url));
const CACHE = fileURLToPath(new URL("../../../node_modules/.cache/svc-bench/", import.meta.url));

/** Replaced, in a path, a header value or the body, by the request's sequence number (0, 1, …). */
export const SEQ = "{{seq}}";

export interface OpenLoopOptions {
  /** http://host:port/path; the path is used unless `paths` is given. */
  url: string;
  ratePerS: number;
  durationS: number;
  /** Kept-alive connections, one request in flight on each. */
  connections: number;
  /** Sent in turn, one per request (e.g. pre-drawn random pages); paths of `url`'s origin. */
  paths?: readonly string[];
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** How long requests still due or in flight are awaited after the schedule ends (s). */
  drainS?: number;
}

export interface LatencyPercentiles {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

export interface OpenLoopResult extends LatencyPercentiles {
  /** Requests the schedule asked for (rate × duration). */
  intended: number;
  sent: number;
  /** Responses read (any status). */
  completed: number;
  /** Requests that failed: connection refused or reset, a response that could not be framed. */
  errors: number;
  /** Requests neither answered nor failed by the end of the drain. */
  unfinished: number;
  /** Requests sent more than 1 ms after their intended time (every connection busy, or the
   * generator itself delayed). */
  late: number;
  maxSendLagMs: number;
  askedRate: number;
  /** Responses per second over the run (at least its duration). */
  achievedRate: number;
  /** The same latencies measured from each request's actual send (what a closed loop sees). */
  uncorrected: LatencyPercentiles;
  statuses: Record<string, number>;
}

let built: Promise<string> | undefined;

/** The generator's binary, compiled once per source version. */
export function openLoopBinary(): Promise<string> {
  built ??= (async () => {
    const source = readFileSync(SOURCE);
    const hash = createHash("sha256").update(source).digest("hex").slice(0, 12);
    const binary = join(CACHE, `open-loop-${hash}`);
    if (existsSync(binary)) return binary;
    mkdirSync(CACHE, { recursive: true });
    const partial = `${binary}.${process.pid}.tmp`;
    await run("gcc", ["-O2", "-Wall", "-o", partial, SOURCE]);
    renameSync(partial, binary);
    return binary;
  })();
  return built;
}

/** Runs the generator against `url` and returns what it measured; latencies in ms. */
export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const url = new URL(options.url);
  if (url.protocol !== "http:") throw new Error(`the generator speaks plain HTTP only: ${url}`);
  const args = [
    "--host",
    url.hostname.replace(/^\[|\]$/g, ""),
    "--port",
    url.port || "80",
    "--rate",
    String(options.ratePerS),
    "--duration",
    String(options.durationS),
    "--connections",
    String(options.connections),
    "--method",
    options.method ?? "GET",
    "--drain",
    String(options.drainS ?? 10),
  ];
  for (const [name, value] of Object.entries(options.headers ?? {}))
    args.push("--header", `${name}: ${value}`);
  if (options.body !== undefined) args.push("--body", options.body);
  let dir: string | undefined;
  if (options.paths && options.paths.length > 0) {
    dir = mkdtempSync(join(tmpdir(), "open-loop-"));
    writeFileSync(join(dir, "paths"), `${options.paths.join("\n")}\n`);
    args.push("--paths-file", join(dir, "paths"));
  } else args.push("--path", `${url.pathname}${url.search}`);
  try {
    const binary = await openLoopBinary();
    const { stdout } = await run(binary, args, {
      timeout: (options.durationS + (options.drainS ?? 10) + 30) * 1000,
    });
    return JSON.parse(stdout) as OpenLoopResult;
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}
