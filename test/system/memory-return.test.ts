/**
 * Memory returns after a burst. The whole system runs as `npm start` runs it (private PostgreSQL,
 * MariaDB and NATS), with a webhook subscription to application.created. A burst of applications
 * goes through the gateway, as fast as 16 clients get answers; the burst is over once the
 * subscriber has received every application's event. From then on every service process's
 * resident set (/proc/<pid>/status) is sampled: it must be back under the idle target within two
 * minutes, and then (from 30 s after the last is back) stay flat through an idle soak: the
 * least-squares slope of each process's resident set over the soak is printed, and the rise it
 * implies over the soak must stay under 6 MB: one idle-release step (4 MB,
 * docs/decisions/idle-heap-release.md) and noise. Work an idle
 * process still does (the change detector's full sweep) may take it above the target; it must be
 * back under it within two minutes. Any process exiting fails the test.
 *
 * CI size: 600 applications, a 1-minute soak. Full size (`FAULT_SUITE=full`): 5,000 applications,
 * a 30-minute soak.
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processMemory } from "@svc/bench";
import { createTestCa, type TestCa } from "@svc/testing";
import { startReceiver, type Receiver } from "../../services/webhooks/test/support/receiver.ts";
import { apiRequest, fetchToken, listedVacancies } from "../fault/support/api-client.ts";
import { sleep, waitUntil } from "../fault/support/checks.ts";
import { STACK_ENV } from "../fault/support/expectations.ts";
import { faultSize } from "../fault/support/fault-size.ts";
import {
  launchStack,
  startBackends,
  type Backends,
  type FaultStack,
  cleanUp,
} from "../fault/support/fault-stack.ts";
import { Recorder } from "../fault/support/load.ts";
import { startApplicationProducer } from "../fault/support/producers.ts";

const size = faultSize();
/** Every service's idle target (docs/performance.md, tools/idle-memory-bench.ts). */
const IDLE_TARGET_MB = 120;
const RETURN_MS = 120_000;
/** From the last return to the soak: long enough for one more idle release (10 s of quiet, checked every 5 s). */
const SETTLE_MS = 30_000;
/** The most the fitted line may rise over the soak: the idle release's step (4 MB) and noise. */
const FLAT_MB = 6;
const SAMPLE_MS = size.name === "full" ? 10_000 : 2_000;
const CONCURRENCY = 16;
/** The gateway is a local development tool, not deployed: reported, not held to the target. */
const SERVICES = ["auth", "practices", "vacancies", "identity", "webhooks", "webhooks-dispatcher"];
const PATH = "/memory";

type Point = { at: number; rssMb: number; anonMb: number; mainCpuMs: number };

/** CPU time the process's main thread has used (/proc/<pid>/task/<pid>/stat, 100 ticks a second). */
function mainThreadCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

let backends: Backends;
let stack: FaultStack;
let ca: TestCa;
let receiver: Receiver;
const recorder = new Recorder();
const runId = randomBytes(3).toString("hex");
const series = new Map<string, Point[]>();
/** When each phase ended (ms since the epoch), and the applications acknowledged. */
const marks: {
  burstStart?: number;
  applied?: number;
  burstEnd?: number;
  soakStart?: number;
  soakEnd?: number;
  created?: number;
} = {};
const returnedAt = new Map<string, number>();
let sampling = false;
let sampler: Promise<void> | undefined;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const mb = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? "-" : n.toFixed(1));

/**
 * Samples every stack process's resident set until `sampling` is cleared. The pids are looked up
 * again only when one is gone (finding them reads all of /proc).
 */
async function sample(): Promise<void> {
  let pids = await stack.pids();
  while (sampling) {
    const at = Date.now();
    for (const [name, pid] of pids) {
      const m = processMemory(pid);
      if (!m) {
        pids = await stack.pids();
        break;
      }
      const points = series.get(name) ?? [];
      points.push({ at, rssMb: m.rssMb, anonMb: m.anonMb, mainCpuMs: mainThreadCpuMs(pid) });
      series.set(name, points);
    }
    await sleep(Math.max(0, SAMPLE_MS - (Date.now() - at)));
  }
}

const between = (name: string, from: number, to = Infinity) =>
  (series.get(name) ?? []).filter((p) => p.at >= from && p.at <= to);
const latest = (name: string) => series.get(name)?.at(-1);

/**
 * The longest stretch of `points` above the target, in ms (work while idle, such as the change
 * detector's full sweep, may raise a process above it for a while); Infinity when the last is above.
 */
function longestAboveTarget(points: Point[]): number {
  let longest = 0;
  let since: number | undefined;
  for (const p of points) {
    if (p.rssMb >= IDLE_TARGET_MB) since ??= p.at;
    else if (since !== undefined) {
      longest = Math.max(longest, p.at - since);
      since = undefined;
    }
  }
  return since === undefined ? longest : Infinity;
}

/** Least-squares slope of the resident set, MB per minute. */
function slopePerMinute(points: Point[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const xs = points.map((p) => (p.at - points[0]!.at) / 60_000);
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = points.reduce((a, p) => a + p.rssMb, 0) / n;
  let sxy = 0;
  let sxx = 0;
  points.forEach((p, i) => {
    sxy += (xs[i]! - mx) * (p.rssMb - my);
    sxx += (xs[i]! - mx) ** 2;
  });
  return sxy / sxx;
}

beforeAll(async () => {
  backends = await startBackends();
  ca = createTestCa();
  receiver = await startReceiver({ key: ca.serverKey, cert: ca.serverCert });
  // The services' own polling intervals (not the other fault tests' shorter ones): idle is what
  // production's idle is.
  stack = await launchStack(backends, {
    LOG_LEVEL: STACK_ENV.LOG_LEVEL!,
    WEBHOOK_ALLOW_LOOPBACK: "true",
    WEBHOOK_EXTRA_CA_FILE: ca.caFile,
  });
  sampling = true;
  sampler = sample();
}, 330_000);

afterAll(async () => {
  sampling = false;
  await cleanUp("memory return", [
    async () => sampler,
    async () => stack?.stop(),
    async () => receiver?.close(),
    async () => backends?.cleanup(),
    async () => ca?.dispose(),
  ]);
  console.info(summary().lines.join("\n"));
}, 120_000);

/** Each process's figures from the samples so far, and the report's lines. */
function summary() {
  const { burstStart = 0, burstEnd = 0, soakStart = 0, soakEnd = Date.now() } = marks;
  const secs = (ms: number | undefined) => (ms === undefined ? "-" : String(Math.round(ms / 1000)));
  const rows = [...series.keys()].sort().map((name) => {
    const soak = marks.soakStart === undefined ? [] : between(name, soakStart, soakEnd);
    const slope = slopePerMinute(soak);
    const first = soak[0];
    const last = soak.at(-1);
    const mainCpu =
      first && last ? (last.mainCpuMs - first.mainCpuMs) / Math.max(1, last.at - first.at) : NaN;
    const row = {
      name,
      service: SERVICES.includes(name),
      slope,
      rise: slope * ((soakEnd - soakStart) / 60_000),
      highest: Math.max(...soak.map((p) => p.rssMb)),
      aboveMs: longestAboveTarget(soak),
    };
    const cells = [
      name.padEnd(20),
      mb(between(name, 0, burstStart).at(-1)?.rssMb).padStart(7),
      mb(Math.max(...between(name, burstStart, burstEnd).map((p) => p.rssMb))).padStart(6),
      mb(between(name, burstEnd).at(0)?.rssMb).padStart(7),
      secs(returnedAt.has(name) ? returnedAt.get(name)! - burstEnd : undefined).padStart(8),
      mb(first?.rssMb).padStart(7),
      mb(last?.rssMb).padStart(7),
      mb(row.highest).padStart(7),
      (row.aboveMs === Infinity ? "end" : String(Math.round(row.aboveMs / 1000))).padStart(8),
      (Number.isFinite(slope) ? slope.toFixed(3) : "-").padStart(8),
      (Number.isFinite(mainCpu) ? (mainCpu * 100).toFixed(2) : "-").padStart(7),
      mb(last?.anonMb).padStart(5),
    ];
    return { ...row, line: cells.join(" ") };
  });
  const lines = [
    `memory return (${size.name}): ${marks.created ?? "?"} applications in ${secs(marks.applied && marks.applied - burstStart)} s (${CONCURRENCY} clients), every event delivered ${secs(marks.applied && burstEnd - marks.applied)} s later; idle target ${IDLE_TARGET_MB} MB; soak ${secs(marks.soakStart && soakEnd - soakStart)} s from ${secs(marks.soakStart && soakStart - burstEnd)} s after the burst; load average ${load()}`,
    "process               before   peak   after  back(s)  soak@0 soak@end soakmax above(s)  MB/min  main%  anon",
    ...rows.map((r) => r.line),
    "(MB; before: just before the burst; after: first sample after it; back: seconds until under the target; above: the longest stretch of the soak above the target, in seconds; MB/min: least-squares slope over the soak; main%: the main thread's share of a core over the soak; anon: anonymous part at the end)",
  ];
  return { rows, lines };
}

describe(`memory after a burst of ${size.burstApplications} applications (${size.name})`, () => {
  it("every service is back under its idle target within 2 minutes and stays flat while idle", async () => {
    const token = await fetchToken(stack.baseUrl, stack.demoClient);
    const sub = await apiRequest<{ data: { secret: string } }>(
      stack.baseUrl,
      token,
      "POST",
      "/v1/webhooks",
      { url: receiver.url(PATH), event_types: ["application.created"] },
    );
    expect(sub.status).toBe(201);
    receiver.setSecrets(PATH, [sub.body.data.secret]);
    receiver.setBehaviour(PATH, () => ({ status: 204 }));
    // The launcher waits for liveness only: a process may still answer 503 while it starts.
    const vacancies = await waitUntil(
      "the vacancies list",
      async () => {
        const listed = await listedVacancies(stack.baseUrl, token, 200);
        return listed.length > 0 ? listed : undefined;
      },
      60_000,
    );

    // The burst: over once the subscriber has every application's event.
    marks.burstStart = Date.now();
    const producer = startApplicationProducer({
      recorder,
      baseUrl: stack.baseUrl,
      token: () => token,
      vacancies,
      perSecond: 1_000,
      maxOutstanding: CONCURRENCY,
      runId,
    });
    await waitUntil(
      `${size.burstApplications} applications acknowledged`,
      () => producer.acknowledged().length >= size.burstApplications || producer.refused().length,
      // At least one application a second, however loaded the machine.
      size.burstApplications * 1_000,
      () => `${producer.acknowledged().length} acknowledged, refused: ${producer.refused()}`,
      500,
    );
    await producer.stop(60_000);
    expect(producer.refused()).toEqual([]);
    const created = producer.acknowledged().length;
    marks.created = created;
    marks.applied = Date.now();
    const deliveredEvents = () => new Set(receiver.received(PATH).map((r) => r.eventId)).size;
    await waitUntil(
      `the subscriber to receive ${created} events`,
      () => deliveredEvents() >= created,
      300_000,
      () => `${deliveredEvents()} received`,
      500,
    );
    const burstEnd = Date.now();
    marks.burstEnd = burstEnd;

    // Back under the target within 2 minutes.
    await waitUntil(
      "every service under its idle target",
      () => {
        for (const name of SERVICES) {
          const p = latest(name);
          if (p && p.at > burstEnd && p.rssMb < IDLE_TARGET_MB && !returnedAt.has(name))
            returnedAt.set(name, p.at);
        }
        return SERVICES.every((n) => (latest(n)?.rssMb ?? Infinity) < IDLE_TARGET_MB);
      },
      RETURN_MS,
      () => SERVICES.map((n) => `${n} ${mb(latest(n)?.rssMb)} MB`).join(", "),
      1_000,
    );
    // The soak starts SETTLE_MS after the last service got back, once a release that follows
    // the return is done.
    const lastBack = Math.max(...SERVICES.map((n) => returnedAt.get(n) ?? Date.now()));
    marks.soakStart = Math.max(Date.now(), lastBack + SETTLE_MS);
    await sleep(marks.soakStart - Date.now() + size.idleSoakMs);
    marks.soakEnd = Date.now();

    expect(stack.exits()).toEqual([]);
    for (const r of summary().rows.filter((row) => row.service)) {
      expect(
        r.aboveMs,
        `${r.name}: longest stretch of the soak above the target (ms; highest ${mb(r.highest)} MB)`,
      ).toBeLessThanOrEqual(RETURN_MS);
      expect(r.rise, `${r.name}: rise of the fitted line over the soak (MB)`).toBeLessThan(FLAT_MB);
    }
  }, 3_600_000);
});
