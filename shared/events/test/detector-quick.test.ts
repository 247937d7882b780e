import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SoloElector } from "@svc/leader";
import { startDetector } from "../src/index.ts";
import type { ChangeRecord, ChangeSource, PassContext } from "../src/index.ts";
import { localOfInstant } from "@svc/time";
import { openWorld, scenario, TZ } from "./support/detector-fixtures.ts";
import type { DetectorWorld } from "./support/detector-fixtures.ts";
import { recordingLogger, waitFor } from "./support/nats.ts";

let world: DetectorWorld;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => void (world = await openWorld()));
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await world.close();
});

async function fresh(options?: Parameters<typeof scenario>[1]) {
  const s = await scenario(world, options);
  closers.push(s.close);
  return s;
}

const SECOND = 1_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The same source without stampsSince: quick passes fall back to changedSince. */
function withoutStamps(inner: ChangeSource): ChangeSource {
  return {
    name: inner.name,
    entityType: inner.entityType,
    events: inner.events,
    changedSince: (cursor, ctx: PassContext) => inner.changedSince(cursor, ctx),
    sweep: (ctx) => inner.sweep(ctx),
    byIds: (ids, ctx): Promise<ChangeRecord[]> => inner.byIds(ids, ctx),
  };
}

describe("quick change detection passes", () => {
  it("read full records only for versions not settled yet, and report each change once", async () => {
    const s = await fresh();
    await s.insert("v1", { modified: s.local(-DAY) });
    await s.insert("v2", { modified: s.local(-DAY) });
    await s.detector.runIncremental(); // baseline
    s.advance(MINUTE);
    await s.update("v1", { title: "Nurse (nights)", modified: s.local() });
    s.source.fetched.length = 0;
    expect(await s.detector.runQuick()).toMatchObject({ kind: "quick", examined: 1, updated: 1 });
    s.advance(2 * SECOND);
    // Read once more by a pass that starts the settle time after it was first seen, then skipped.
    expect(await s.detector.runQuick()).toMatchObject({ kind: "quick", examined: 1, updated: 0 });
    expect(await s.detector.runQuick()).toMatchObject({ kind: "quick", examined: 0 });
    expect(s.source.fetched).toEqual([["v1"], ["v1"]]);
    s.advance(SECOND);
    await s.update("v2", { deleted: 1, modified: s.local() });
    expect(await s.detector.runQuick()).toMatchObject({ examined: 1, deleted: 1 });
    await s.detector.runIncremental();
    await s.detector.runSweep();
    expect(await s.events()).toEqual(["vacancy.updated v1", "vacancy.deleted v2"]);
  });

  it("read a version stamped hours behind the cursor (a UTC clock) or ahead of it in the next quick pass", async () => {
    const s = await fresh();
    await s.insert("v1", { modified: s.local(-DAY) });
    await s.detector.runIncremental(); // baseline
    s.advance(MINUTE);
    await s.insert("v2"); // stamped now: the cursor follows it to the present
    expect(await s.detector.runQuick()).toMatchObject({ created: 1 });
    const utc = localOfInstant(s.clock.ms, "UTC"); // two hours behind Brussels in June
    await s.update("v1", { title: "Stamped in UTC", modified: utc });
    expect(await s.detector.runQuick()).toMatchObject({ updated: 1 });
    await s.update("v1", { title: "Stamped ahead", modified: s.local(HOUR) });
    expect(await s.detector.runQuick()).toMatchObject({ updated: 1 });
    await s.update("v1", { title: "Set back", modified: s.local() });
    expect(await s.detector.runQuick()).toMatchObject({ updated: 1 });
    expect(await s.events()).toEqual([
      "vacancy.created v2",
      ...Array(3).fill("vacancy.updated v1"),
    ]);
  });

  it("read a version again while it is younger than the settle time: a second write in the same second is reported", async () => {
    const s = await fresh();
    await s.insert("v1", { modified: s.local(-60 * MINUTE) });
    await s.detector.runIncremental();
    s.advance(MINUTE);
    const stamp = s.local();
    await s.update("v1", { title: "First", modified: stamp });
    expect(await s.detector.runQuick()).toMatchObject({ updated: 1 });
    await s.update("v1", { title: "Second", modified: stamp });
    s.advance(500);
    expect(await s.detector.runQuick()).toMatchObject({ updated: 1 });
    expect(await s.events()).toEqual(["vacancy.updated v1", "vacancy.updated v1"]);
  });

  it("without stampsSince, read changedSince and skip the versions already evaluated", async () => {
    // `s` holds the tables; `plain` runs a detector over them through the reduced source.
    const s = await fresh();
    const plain = await fresh({ source: withoutStamps(s.source) });
    await s.insert("v1", { modified: plain.local(-DAY) });
    await plain.detector.runIncremental();
    plain.advance(MINUTE);
    await s.update("v1", { title: "Changed", modified: plain.local() });
    expect(await plain.detector.runQuick()).toMatchObject({ examined: 1, updated: 1 });
    plain.advance(2 * SECOND);
    expect(await plain.detector.runQuick()).toMatchObject({ examined: 1, updated: 0 });
    expect(await plain.detector.runQuick()).toMatchObject({ examined: 0 });
    expect(s.source.fetched).toEqual([]);
    expect(await plain.events()).toEqual(["vacancy.updated v1"]);
  });

  it("under the default schedule, a committed change reaches the outbox through quick passes", async () => {
    const s = await fresh();
    await s.insert("v1", { modified: s.local(-60 * MINUTE) });
    let woken = 0;
    const detector = startDetector({
      ...s.detectorOptions,
      now: Date.now,
      logger: recordingLogger(),
      elector: new SoloElector(),
      // Only quick passes run after the first: the overlap pass would come too late to pass.
      overlapEveryMs: 10 * MINUTE,
      onEvents: () => void (woken += 1),
    });
    closers.push(() => detector.stop());
    await waitFor("the baseline", () => (detector.stats().last?.kind ?? "") === "baseline", 30_000);
    const latencies: number[] = [];
    for (let i = 1; i <= 5; i++) {
      const before = (await s.events()).length;
      const committed = Date.now();
      await s.update("v1", { title: `Change ${i}`, modified: localOfInstant(Date.now(), TZ) });
      await waitFor(
        `change ${i} in the outbox`,
        async () => (await s.events()).length > before,
        20_000,
      );
      latencies.push(Date.now() - committed);
    }
    // Generous: a loaded CI machine; the overlap pass alone would take 10 minutes.
    expect(Math.max(...latencies)).toBeLessThan(5_000);
    expect(await s.events()).toEqual(Array(5).fill("vacancy.updated v1"));
    expect(woken).toBe(5);
  });
});
