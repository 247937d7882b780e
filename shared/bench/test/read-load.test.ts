import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  measureReadScenario,
  readScenarioRows,
  startBenchProcess,
  type BenchProcess,
  type ReadScenarioResult,
  type ReadTarget,
} from "../src/index.ts";

// Two real servers in their own processes, as the read benchmarks run theirs: the "service"
// answers after a known 10 ms, the "baseline" at once; 404 for any path but /read.
const server = (delayMs: number) => `
  const server = require("node:http").createServer((req, res) => {
    setTimeout(() => { res.statusCode = req.url.startsWith("/read") ? 200 : 404; res.end("{}"); }, ${delayMs});
  }).listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: server.address().port })));`;

const started: BenchProcess[] = [];
async function start(delayMs: number, paths: string[]): Promise<ReadTarget> {
  const proc = startBenchProcess(["-e", server(delayMs)], { env: {}, keep: /^\{"port"/ });
  started.push(proc);
  const line = await proc.waitForLine(/^\{"port"/, 60_000);
  const { port } = JSON.parse(line) as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    headers: { accept: "application/json" },
    paths,
    process: proc,
  };
}

let result: ReadScenarioResult;
beforeAll(async () => {
  const paths = ["/read?a=1", "/read?a=2"];
  const [service, baseline] = await Promise.all([start(10, paths), start(0, paths)]);
  result = await measureReadScenario(service, baseline, {
    connections: 4,
    maxSeconds: 1,
    openSeconds: 2,
  });
}, 120_000);
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop()));
});

describe("measureReadScenario", () => {
  it("finds each one's maximum with wrk, bounded by the service time for the service", () => {
    // 4 connections, 10 ms each: at most 400 responses per second.
    expect(result.service.rps).toBeLessThan(420);
    expect(result.service.rps).toBeGreaterThan(50);
    expect(result.baseline.rps).toBeGreaterThan(result.service.rps);
    expect(result.service.failures + result.baseline.failures).toBe(0);
    expect(result.service.cpuUs).toBeGreaterThan(0);
  });

  it("loads both at 50 % and 80 % of the service's own maximum, open loop", () => {
    expect(result.levels.map((l) => l.share)).toEqual([0.5, 0.8]);
    for (const level of result.levels) {
      expect(level.rate).toBe(Math.round(result.service.rps * level.share));
      for (const side of [level.service, level.baseline]) {
        expect(side.askedRate).toBe(level.rate);
        expect(side.intended).toBe(level.rate * 2);
        expect(side.statuses["200"]).toBe(side.intended);
      }
      expect(level.service.p50).toBeGreaterThanOrEqual(9.5);
      expect(level.baseline.p50).toBeLessThan(level.service.p50);
    }
    expect(result.peakMb.service).toBeGreaterThan(0);
  });

  it("reports each percentile beside the baseline, with the p99 target at 50 %", () => {
    const rows = readScenarioRows("reads", result, { throughputShare: 0.6, p99Ms: 5 });
    const row = (metric: string) => rows.find((r) => r.metric === metric);
    expect(row("throughput (max, wrk)")).toMatchObject({
      value: Math.round(result.service.rps),
      baseline: Math.round(result.baseline.rps),
      target: "≥ 60% of baseline",
    });
    // A 10 ms service cannot hold a 5 ms p99.
    expect(row("50% of max: p99")).toMatchObject({ target: "< 5 ms", met: false });
    expect(row("80% of max: p99")?.target).toBeUndefined();
    expect(row("80% of max: p99.9")?.baseline).toBe(
      Math.round(result.levels[1]!.baseline.p999 * 10) / 10,
    );
    expect(row("open-loop rate at 80% of max")?.value).toBe(result.levels[1]!.rate);
    expect(row("errors")).toBeUndefined();
  });
});

describe("measureReadScenario on a service too slow for the window", () => {
  it("says so with what it got, and measures no latency at a rate it could not find", async () => {
    const paths = ["/read"];
    // 1.5 s per response, 2 connections: at most 2 responses in the longest window of 2 s.
    const [service, baseline] = await Promise.all([start(1_500, paths), start(0, paths)]);
    const slow = await measureReadScenario(service, baseline, {
      connections: 2,
      maxSeconds: 1,
      openSeconds: 1,
      minResponses: 10,
      slowMaxSeconds: 2,
    });
    expect(slow.levels).toEqual([]);
    expect(slow.tooSlow).toBe(
      `too slow to measure at this size: ${slow.service.requests} responses in 2 s`,
    );
    expect(slow.service.requests).toBeLessThan(10);
    expect(Number.isFinite(slow.service.rps)).toBe(true);
    expect(slow.baseline.tooSlow).toBeUndefined();
    const rows = readScenarioRows("slow reads", slow, { p99Ms: 50 });
    expect(rows.find((r) => r.metric === slow.tooSlow)).toMatchObject({
      value: slow.service.requests,
      unit: "responses",
      target: "p99 < 50 ms at 50% of max",
      met: false,
    });
    expect(rows.some((r) => r.metric.includes("p99"))).toBe(false);
  }, 60_000);
});
