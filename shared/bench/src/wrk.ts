/**
 * Closed-loop maximum throughput with wrk (Debian's `wrk` package: `apt-get install wrk`): C,
 * epoll, LuaJIT scripts, a few percent of a core where a Node client took a third of the two.
 * A generated Lua script sets the request, optionally sends the given paths in turn, a unique value
 * per request in one header (an Idempotency-Key) and counts responses by status, and prints the
 * latency percentiles and counts as one JSON line from its done() hook.
 * Its latencies are closed-loop (coordinated omission not corrected): use it for throughput, and
 * openLoop for latency. Why: docs/decisions/open-loop-load.md.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { raisePriority } from "./open-loop.ts";

const run = promisify(execFile);

export interface WrkOptions {
  /** http://host:port/path; the path is used unless `paths` is given. */
  url: string;
  connections: number;
  /** Whole seconds (wrk's resolution); at least 1. */
  durationS: number;
  /** wrk threads; one keeps the generator on one core (default 1). */
  threads?: number;
  method?: string;
  headers?: Record<string, string>;
  /**
   * Each "{{seq}}" in it becomes the request's number, unique over the run's threads (0, 1, …):
   * a body per request, e.g. a new person per POST.
   */
  body?: string;
  /** Sent in turn, one per request; paths of `url`'s origin. */
  paths?: readonly string[];
  /** A header given a value unique to each request (run, thread and counter). */
  uniqueHeader?: string;
  /**
   * Headers whose value changes per request: each request takes its thread's next value of each
   * list, in turn (e.g. distinct Basic credentials, which a "{{seq}}" cannot make: base64).
   */
  rotatingHeaders?: Record<string, readonly string[]>;
  /**
   * A run answering fewer responses than this (default 100) is too few to be a throughput: it is
   * run again once, with a window long enough for them at the rate seen (up to `maxDurationS`).
   */
  minResponses?: number;
  /** The longest window a slow scenario gets (s, default 30; never below `durationS`). */
  maxDurationS?: number;
  /** A request unanswered after this long counts as a timeout error (s, default 30). */
  timeoutS?: number;
  /**
   * Count responses by status code. Off by default: wrk then hands every body to Lua, which
   * doubles its CPU per response on large bodies; `badStatuses` is counted either way.
   */
  statusCounts?: boolean;
}

export interface WrkResult {
  /** Responses per second (0 when there were none). */
  rps: number;
  requests: number;
  /** The window of the run reported (s): `durationS`, or longer for a slow scenario. */
  durationS: number;
  /**
   * Set when even the longest window answered fewer than `minResponses`: "too slow to measure
   * at this size: N responses in S s". Its rps and percentiles are not a measurement to rely on.
   */
  tooSlow?: string;
  /** Closed-loop latencies, ms. */
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  /** Responses by status code; empty unless `statusCounts`. */
  statuses: Record<string, number>;
  /** Responses with a status of 400 or above. */
  badStatuses: number;
  /** Socket errors: connect, read, write and timeouts (responses of any status are statuses). */
  errors: number;
}

/** A Lua string literal. */
const lua = (text: string) =>
  `"${text
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/\r/g, "\\r")
    .replace(/\n/g, "\\n")}"`;

/** The wrk script for `options` (exported for its test). */
export function wrkScript(options: WrkOptions, runId: string): string {
  const headers = Object.entries(options.headers ?? {})
    .map(([name, value]) => `wrk.headers[${lua(name)}] = ${lua(value)}`)
    .join("\n");
  const paths = options.paths?.length ? `{${options.paths.map(lua).join(", ")}}` : "nil";
  const unique = options.uniqueHeader ? lua(options.uniqueHeader) : "nil";
  const rotating = Object.entries(options.rotatingHeaders ?? {}).filter(([, v]) => v.length > 0);
  const rotatingLua = rotating.length
    ? `{${rotating.map(([name, values]) => `{${lua(name)}, {${values.map(lua).join(", ")}}}`).join(", ")}}`
    : "nil";
  const bodyParts = options.body?.includes("{{seq}}")
    ? `{${options.body.split("{{seq}}").map(lua).join(", ")}}`
    : "nil";
  const threads = options.threads ?? 1;
  const perRequest =
    options.paths?.length || options.uniqueHeader || bodyParts !== "nil" || rotating.length;
  return `
wrk.method = ${lua(options.method ?? "GET")}
${options.body === undefined ? "" : `wrk.body = ${lua(options.body)}`}
${headers}
local paths = ${paths}
local unique = ${unique}
local bodyParts = ${bodyParts}
local rotating = ${rotatingLua}
local threads = {}
local counter = 0

function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads)
end

function init(args)
  statuses = {}
end

${
  perRequest
    ? `function request()
  counter = counter + 1
  if unique then wrk.headers[unique] = ${lua(runId)} .. "-" .. id .. "-" .. counter end
  if rotating then
    for _, h in ipairs(rotating) do
      wrk.headers[h[1]] = h[2][((counter - 1) * ${threads} + id - 1) % #h[2] + 1]
    end
  end
  local path = paths and paths[(counter - 1) % #paths + 1] or nil
  local body = nil
  if bodyParts then
    body = table.concat(bodyParts, string.format("%d", (counter - 1) * ${threads} + id - 1))
  end
  return wrk.format(nil, path, nil, body)
end`
    : ""
}

${
  options.statusCounts
    ? `function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end`
    : ""
}

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for code, n in pairs(thread:get("statuses")) do
      total[code] = (total[code] or 0) + n
    end
  end
  local parts = {}
  for code, n in pairs(total) do parts[#parts + 1] = string.format('"%d":%d', code, n) end
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"durationUs":%d,"errors":%d,"badStatuses":%d,"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d,"statuses":{%s}}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max, table.concat(parts, ",")))
end
`;
}

const MIN_RESPONSES = 100;
const MAX_DURATION_S = 30;

/**
 * Runs wrk against `url` for `durationS` and returns what it measured. A slow scenario (fewer
 * than `minResponses` answered) is run once more with a window long enough for them at the rate
 * it showed, up to `maxDurationS`; if that still answers too few, the result says so (`tooSlow`).
 */
export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const min = options.minResponses ?? MIN_RESPONSES;
  const first = await runWrkOnce(options, wholeSeconds(options.durationS));
  if (first.requests >= min) return first;
  const longest = Math.max(first.durationS, wholeSeconds(options.maxDurationS ?? MAX_DURATION_S));
  // A fifth more than the first window's rate asks for: a rate from a few responses is rough.
  const needed =
    first.requests === 0 ? longest : Math.ceil((first.durationS * min * 1.2) / first.requests);
  const longer = Math.min(longest, needed);
  const result = longer > first.durationS ? await runWrkOnce(options, longer) : first;
  if (result.requests >= min) return result;
  return {
    ...result,
    tooSlow: `too slow to measure at this size: ${result.requests} responses in ${result.durationS} s`,
  };
}

const wholeSeconds = (s: number) => Math.max(1, Math.round(s));

async function runWrkOnce(options: WrkOptions, seconds: number): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), "wrk-"));
  try {
    const script = join(dir, "bench.lua");
    writeFileSync(script, wrkScript(options, randomBytes(6).toString("hex")));
    const running = run(
      "wrk",
      [
        "-t",
        String(options.threads ?? 1),
        "-c",
        String(options.connections),
        "-d",
        `${seconds}s`,
        "--timeout",
        `${options.timeoutS ?? 30}s`,
        "-s",
        script,
        options.url,
      ],
      { timeout: (seconds + (options.timeoutS ?? 30) + 30) * 1000 },
    );
    raisePriority(running.child.pid);
    const { stdout } = await running.catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") throw new Error("wrk is not installed (apt-get install wrk)");
      throw err;
    });
    const line = stdout.split("\n").find((l) => l.startsWith("WRK_JSON "));
    if (!line) throw new Error(`wrk printed no result:\n${stdout.slice(0, 2000)}`);
    const raw = JSON.parse(line.slice("WRK_JSON ".length)) as {
      requests: number;
      durationUs: number;
      errors: number;
      badStatuses: number;
      p50: number;
      p90: number;
      p99: number;
      p999: number;
      max: number;
      statuses: Record<string, number>;
    };
    const ms = (us: number) => us / 1000;
    return {
      rps: raw.requests > 0 ? raw.requests / (raw.durationUs / 1e6) : 0,
      requests: raw.requests,
      durationS: seconds,
      p50: ms(raw.p50),
      p90: ms(raw.p90),
      p99: ms(raw.p99),
      p999: ms(raw.p999),
      max: ms(raw.max),
      statuses: raw.statuses,
      badStatuses: raw.badStatuses,
      errors: raw.errors,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
