import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { advisoryLockKey, PgAdvisoryLockElector } from "@svc/leader";
import { startDetector } from "../src/index.ts";
import type { ChangeRecord, ChangeSource } from "../src/index.ts";
import { openWorld, scenario } from "./support/detector-fixtures.ts";
import type { DetectorWorld } from "./support/detector-fixtures.ts";
import { recordingLogger, waitFor } from "./support/nats.ts";

// A leader whose first pass keeps its process busy on a loaded host: the lock session's checks
// are answered while the process computes, and must not be taken for a silent connection.
const STALL_MS = 2_500;
const SLOW_PAGES = 5;

let world: DetectorWorld;
const busy: ChildProcess[] = [];
beforeAll(async () => {
  world = await openWorld();
  // Load both cores of the host, as other processes on a busy machine do.
  for (let i = 0; i < 2; i++)
    busy.push(spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
});
afterAll(async () => {
  for (const child of busy) child.kill("SIGKILL");
  await world.close();
});

/** Blocks this process for `ms`, as mapping and hashing a large page does on a starved core. */
function compute(ms: number): void {
  for (const end = performance.now() + ms; performance.now() < end;);
}

/** When the slow sweep started (performance.now()). */
let sweepStarted: number | undefined;

/** `inner` whose sweep computes for STALL_MS before each of its first SLOW_PAGES pages. */
function slowFirstPass(inner: ChangeSource): ChangeSource {
  return {
    name: inner.name,
    entityType: inner.entityType,
    events: inner.events,
    changedSince: (cursor, ctx) => inner.changedSince(cursor, ctx),
    async *sweep(ctx) {
      sweepStarted ??= performance.now();
      let pages = 0;
      for await (const page of inner.sweep(ctx)) {
        if (pages++ < SLOW_PAGES) compute(STALL_MS);
        yield page;
      }
    },
    byIds: (ids, ctx): Promise<ChangeRecord[]> => inner.byIds(ids, ctx),
  };
}

async function lockHolder(name: string): Promise<number | null> {
  const u = BigInt.asUintN(64, advisoryLockKey(name));
  const { rows } = await world.pool.query<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND classid = $1::oid AND objid = $2::oid`,
    [String(u >> 32n), String(u & 0xffffffffn)],
  );
  return rows[0]?.pid ?? null;
}

describe("a leader whose first pass is slow on a busy host", () => {
  it("keeps its lock through the pass: no leadership change, the same session holds it", async () => {
    const s = await scenario(world);
    for (let i = 0; i < SLOW_PAGES * 50; i++) await s.insert(`v${i}`);
    const name = `test:${randomBytes(4).toString("hex")}`;
    const logger = recordingLogger();
    // The elector's defaults, as the services run it.
    const elector = new PgAdvisoryLockElector({ pool: world.pool, name, logger });
    const detector = startDetector({
      ...s.detectorOptions,
      source: slowFirstPass(s.source),
      logger,
      elector,
    });
    try {
      await waitFor("leadership", () => detector.isLeader(), 10_000);
      const holder = await lockHolder(name);
      expect(holder).not.toBeNull();
      const holders = new Set<number | null>();
      const started = performance.now();
      while (detector.stats().last?.kind !== "baseline") {
        holders.add(await lockHolder(name));
        if (performance.now() - started > 45_000) throw new Error("the first pass did not end");
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      // The pass's own length: the sweep may have computed its first pages before this test's
      // loop (blocked by them, in the same process) took its start.
      expect(performance.now() - sweepStarted!).toBeGreaterThan(SLOW_PAGES * STALL_MS);
      expect([...holders]).toEqual([holder]);
      expect(await lockHolder(name)).toBe(holder);
      expect(detector.isLeader()).toBe(true);
      const messages = logger.entries.map((e) => e.msg);
      expect(messages.filter((m) => m === "leadership acquired")).toHaveLength(1);
      expect(messages).not.toContain("leader lock session lost; aborting");
      expect(messages).not.toContain("leadership released");
    } finally {
      await detector.stop();
      await s.close();
    }
  }, 60_000);
});
