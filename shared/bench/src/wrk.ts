/**
 * Closed-loop maximum throughput with wrk (Debian's `wrk` package: `apt-get install wrk`): C,
 * epoll, LuaJIT scripts, a few percent of a core where a Node client took a third of the two.
 * A generated Lua script sets the request, counts responses by status, optionally sends the given
 * paths in turn and a unique value per request in one header (an Idempotency-Key), and prints the
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
  body?: string;
  /** Sent in turn, one per request; paths of `url`'s origin. */
  paths?: readonly string[];
  /** A header given a value unique to each request (run, thread and counter). */
  uniqueHeader?: string;
  /** A request unanswered after this long counts as a timeout error (s, default 30). */
  timeoutS?: number;
}

export interface WrkResult {
  /** Responses per second. */
  rps: number;
  requests: number;
  /** Closed-loop latencies, ms. */
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  /** Responses by status code. */
  statuses: Record<string, number>;
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
  const perRequest = options.paths?.length || options.uniqueHeader;
  return `
wrk.method = ${lua(options.method ?? "GET")}
${options.body === undefined ? "" : `wrk.body = ${lua(options.body)}`}
${headers}
local paths = ${paths}
local unique = ${unique}
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
  local path = paths and paths[(counter - 1) % #paths + 1] or nil
  return wrk.format(nil, path)
end`
    : ""
}

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

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
    'WRK_JSON {"requests":%d,"durationUs":%d,"errors":%d,"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d,"statuses":{%s}}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max, table.concat(parts, ",")))
end
`;
}

/** Runs wrk against `url` for `durationS` and returns what it measured. */
export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), "wrk-"));
  try {
    const script = join(dir, "bench.lua");
    writeFileSync(script, wrkScript(options, randomBytes(6).toString("hex")));
    const seconds = Math.max(1, Math.round(options.durationS));
    const { stdout } = await run(
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
    ).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") throw new Error("wrk is not installed (apt-get install wrk)");
      throw err;
    });
    const line = stdout.split("\n").find((l) => l.startsWith("WRK_JSON "));
    if (!line) throw new Error(`wrk printed no result:\n${stdout.slice(0, 2000)}`);
    const raw = JSON.parse(line.slice("WRK_JSON ".length)) as {
      requests: number;
      durationUs: number;
      errors: number;
      p50: number;
      p90: number;
      p99: number;
      p999: number;
      max: number;
      statuses: Record<string, number>;
    };
    const ms = (us: number) => us / 1000;
    return {
      rps: raw.requests / (raw.durationUs / 1e6),
      requests: raw.requests,
      p50: ms(raw.p50),
      p90: ms(raw.p90),
      p99: ms(raw.p99),
      p999: ms(raw.p999),
      max: ms(raw.max),
      statuses: raw.statuses,
      errors: raw.errors,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
