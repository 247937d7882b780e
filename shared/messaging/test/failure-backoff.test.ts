import { describe, expect, it } from "vitest";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { failureBackoff } from "../src/failure-backoff.ts";
import type { FailureBackoffOptions } from "../src/failure-backoff.ts";
import { recordingLogger, sleep } from "./support.ts";

const where = { stream: "S", consumer: "C" };
const never = new AbortController().signal;

function gateWith(options: Partial<FailureBackoffOptions> = {}) {
  const logger = recordingLogger();
  const gate = failureBackoff({
    minMs: 40,
    maxMs: 400,
    stillFailingLogMs: 60_000,
    logger,
    where,
    ...options,
  });
  return { gate, logger };
}

/** How long admit() takes to resolve, in ms. */
async function admitTime(gate: ReturnType<typeof failureBackoff>, signal = never) {
  const started = performance.now();
  const admission = await gate.admit(signal);
  return { admission, waitedMs: performance.now() - started };
}

/** Resolves true if admit() is still pending after `ms`. */
async function blockedFor(gate: ReturnType<typeof failureBackoff>, ms: number) {
  const pending = gate.admit(never).then((a) => (a.cancel(), false));
  return Promise.race([pending, sleep(ms).then(() => true)]);
}

class TestReader extends MetricReader {
  protected async onShutdown() {}
  protected async onForceFlush() {}
}

describe("failureBackoff", () => {
  it("admits at once while handlers succeed", async () => {
    const { gate, logger } = gateWith();
    for (let i = 0; i < 5; i++) {
      const { admission, waitedMs } = await admitTime(gate);
      expect(waitedMs).toBeLessThan(20);
      admission.succeeded();
    }
    expect(gate.failing()).toBe(false);
    expect(logger.entries).toEqual([]);
  });

  it("pauses after a failure, and the next handler's success ends the outage with one line carrying the count", async () => {
    const { gate, logger } = gateWith();
    const first = await gate.admit(never);
    first.failed(new Error("connect ECONNREFUSED"), { streamSeq: 7 });
    expect(gate.failing()).toBe(true);
    // The first pause is 50–100 % of minMs (40 ms).
    const { admission, waitedMs } = await admitTime(gate);
    expect(waitedMs).toBeGreaterThanOrEqual(18);
    admission.succeeded();
    expect(gate.failing()).toBe(false);
    expect(logger.entries.map((e) => [e.level, e.msg])).toEqual([
      ["warn", "message handler failing; backing off"],
      ["info", "message handler recovered"],
    ]);
    expect(logger.entries[0]!.obj).toMatchObject({ ...where, streamSeq: 7 });
    expect((logger.entries[0]!.obj as { err: Error }).err.message).toBe("connect ECONNREFUSED");
    expect(logger.entries[1]!.obj).toMatchObject({ ...where, failures: 1 });
    expect((logger.entries[1]!.obj as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(
      18,
    );
  });

  it("runs one probe at a time during an outage, and each failed probe lengthens the pause up to the cap", async () => {
    const { gate } = gateWith({ minMs: 20, maxMs: 160 });
    (await gate.admit(never)).failed(new Error("down"), {});
    const waits: number[] = [];
    for (let probe = 0; probe < 6; probe++) {
      const { admission, waitedMs } = await admitTime(gate);
      waits.push(waitedMs);
      // While the probe runs, nothing else is admitted, however long it takes.
      expect(await blockedFor(gate, 30)).toBe(true);
      admission.failed(new Error("down"), {});
    }
    // Pause k is 50–100 % of min(20·2^(k-1), 160): 10–20, 20–40, 40–80, 80–160, then the cap.
    const floors = [10, 20, 40, 80, 80, 80];
    waits.forEach((w, i) => expect(w).toBeGreaterThanOrEqual(floors[i]! - 2));
    // Uncapped, the sixth would be 320–640 ms; the margin is for timers on a busy machine.
    waits.forEach((w) => expect(w).toBeLessThan(160 + 140));
    expect(gate.failing()).toBe(true);
  });

  it("ignores a success from a handler admitted before the outage began", async () => {
    const { gate, logger } = gateWith();
    const early = await gate.admit(never);
    const failing = await gate.admit(never);
    failing.failed(new Error("down"), {});
    early.succeeded();
    expect(gate.failing()).toBe(true);
    const late = await gate.admit(never);
    late.succeeded();
    expect(gate.failing()).toBe(false);
    expect(logger.entries.at(-1)!.obj).toMatchObject({ failures: 1 });
  });

  it("counts failures of handlers admitted before the pause without lengthening it or reopening a closed outage", async () => {
    const { gate, logger } = gateWith({ minMs: 40, maxMs: 4_000 });
    const inFlight = await Promise.all([1, 2, 3, 4, 5].map(() => gate.admit(never)));
    for (const a of inFlight.slice(0, 4)) a.failed(new Error("down"), {});
    // One first pause (20–40 ms), not the fourth (160–320 ms).
    const { admission, waitedMs } = await admitTime(gate);
    expect(waitedMs).toBeLessThan(150);
    admission.succeeded();
    expect(logger.entries.at(-1)).toMatchObject({ msg: "message handler recovered" });
    expect(logger.entries.at(-1)!.obj).toMatchObject({ failures: 4 });
    // The last of the old handlers fails after the recovery: no new outage, no new line.
    inFlight[4]!.failed(new Error("down"), {});
    expect(gate.failing()).toBe(false);
    expect(logger.entries).toHaveLength(2);
  });

  it("writes a 'still failing' line at most once per stillFailingLogMs during a long outage", async () => {
    const { gate, logger } = gateWith({ minMs: 10, maxMs: 20, stillFailingLogMs: 150 });
    const started = Date.now();
    (await gate.admit(never)).failed(new Error("down"), {});
    let failures = 1;
    while (Date.now() - started < 400 || failures < 10) {
      (await gate.admit(never)).failed(new Error("down"), {});
      failures++;
    }
    const elapsed = Date.now() - started;
    (await gate.admit(never)).succeeded();
    const lines = logger.entries.map((e) => e.msg);
    expect(lines[0]).toBe("message handler failing; backing off");
    expect(lines.at(-1)).toBe("message handler recovered");
    const still = lines.filter((m) => m === "message handler still failing; backing off");
    expect(still.length).toBeGreaterThanOrEqual(1);
    expect(still.length).toBeLessThanOrEqual(Math.floor(elapsed / 150));
    expect(logger.entries.at(-1)!.obj).toMatchObject({ failures });
  });

  it("admits at once, pause or probe, when the signal is aborted", async () => {
    const { gate } = gateWith({ minMs: 10_000, maxMs: 10_000 });
    (await gate.admit(never)).failed(new Error("down"), {});
    const stop = new AbortController();
    const waiting = admitTime(gate, stop.signal);
    await sleep(30);
    stop.abort();
    expect((await waiting).waitedMs).toBeLessThan(500);
    expect((await admitTime(gate, stop.signal)).waitedMs).toBeLessThan(20);
  });

  it("gives a failed message a retry delay that doubles with its delivery count, jittered, up to the cap", () => {
    const { gate } = gateWith({ minMs: 1_000, maxMs: 30_000 });
    for (let i = 0; i < 50; i++) {
      const d1 = gate.retryDelayMs(1);
      const d3 = gate.retryDelayMs(3);
      const d20 = gate.retryDelayMs(20);
      expect(d1).toBeGreaterThanOrEqual(500);
      expect(d1).toBeLessThanOrEqual(1_000);
      expect(d3).toBeGreaterThanOrEqual(2_000);
      expect(d3).toBeLessThanOrEqual(4_000);
      expect(d20).toBeGreaterThanOrEqual(15_000);
      expect(d20).toBeLessThanOrEqual(30_000);
    }
  });

  it("counts every failure on the counter, labelled with the stream and consumer", async () => {
    const reader = new TestReader();
    const provider = new MeterProvider({ readers: [reader] });
    const failures = provider.getMeter("test").createCounter("messaging.consumer.handler.failures");
    const { gate } = gateWith({ failures });
    const inFlight = await Promise.all([1, 2, 3].map(() => gate.admit(never)));
    for (const a of inFlight) a.failed(new Error("down"), {});
    (await gate.admit(never)).succeeded();
    const { resourceMetrics } = await reader.collect();
    const points = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .flatMap((m): Array<{ value: unknown; attributes: object }> => m.dataPoints);
    expect(points).toHaveLength(1);
    expect(points[0]!.value).toBe(3);
    expect(points[0]!.attributes).toEqual({
      "messaging.system": "nats",
      "messaging.destination.name": "S",
      "messaging.consumer.group.name": "C",
    });
    await provider.shutdown();
  });
});
