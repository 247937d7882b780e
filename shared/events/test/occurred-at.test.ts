import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { occurredAt, stampInstant } from "../src/change-detection/occurred-at.ts";
import { openWorld, scenario, TZ } from "./support/detector-fixtures.ts";
import type { DetectorWorld } from "./support/detector-fixtures.ts";

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString().replace("Z", "+00:00");

describe("a source stamp as an instant", () => {
  it("reads legacy wall-clock time in the source zone, summer and winter", () => {
    expect(stampInstant("2024-06-10 10:00:00", TZ)).toBe(Date.parse("2024-06-10T08:00:00Z"));
    expect(stampInstant("2024-01-10T10:00:00", TZ)).toBe(Date.parse("2024-01-10T09:00:00Z"));
    expect(stampInstant("2024-10-27 01:59:59", TZ)).toBe(Date.parse("2024-10-26T23:59:59Z"));
    expect(stampInstant("2024-10-27 03:00:00", TZ)).toBe(Date.parse("2024-10-27T02:00:00Z"));
  });

  it("refuses a time of the repeated autumn hour, of the spring gap, and what is not a time", () => {
    expect(stampInstant("2024-10-27 02:30:00", TZ)).toBeNull();
    expect(stampInstant("2024-10-27 02:00:00", TZ)).toBeNull();
    expect(stampInstant("2024-03-31 02:30:00", TZ)).toBeNull();
    expect(stampInstant("0000-00-00 00:00:00", TZ)).toBeNull();
    expect(stampInstant("yesterday", TZ)).toBeNull();
  });

  it("takes the stamp only between the last time the record was seen and the detection", () => {
    const since = new Date("2024-06-10T08:00:00Z");
    const detected = new Date("2024-06-10T08:10:00Z");
    const at = (stamp: string | null, seen: Date | null = since) =>
      occurredAt(stamp === null ? null : Date.parse(stamp), seen, detected).toISOString();
    expect(at("2024-06-10T08:05:00Z")).toBe("2024-06-10T08:05:00.000Z");
    expect(at("2024-06-10T08:00:00Z")).toBe("2024-06-10T08:00:00.000Z");
    expect(at("2024-06-10T07:59:59Z")).toBe(detected.toISOString());
    expect(at("2024-06-10T07:00:00Z", null)).toBe("2024-06-10T07:00:00.000Z");
    expect(at("2024-06-10T08:10:01Z")).toBe(detected.toISOString());
    expect(at(null)).toBe(detected.toISOString());
  });
});

let world: DetectorWorld;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => void (world = await openWorld()));
afterAll(async () => {
  for (const close of closers) await close();
  await world.close();
});

/** A scenario past its baseline (taken at the clock's start), with `v1` stamped an hour before. */
async function baselined(startIso?: string) {
  const s = await scenario(world);
  closers.push(s.close);
  if (startIso) s.clock.ms = Date.parse(startIso);
  await s.insert("v1", { modified: s.local(-60 * MINUTE) });
  expect(await s.detector.runIncremental()).toMatchObject({ kind: "baseline" });
  const occurred = async () =>
    (
      await world.pool.query<{ e: string }>(
        `SELECT event_type || ' ' || (payload->'entity'->>'id') || ' ' || (payload->>'occurred_at') AS e
         FROM "${s.schema}".outbox ORDER BY id`,
      )
    ).rows.map((r) => r.e);
  return { ...s, occurred };
}

describe("occurred_at of a detected change", () => {
  it("is the modification stamp of an update the incremental pass found by it", async () => {
    const s = await baselined();
    const baselineAt = s.clock.ms;
    s.advance(10 * MINUTE);
    await s.update("v1", { title: "Nurse", modified: s.local(-5 * MINUTE) });
    await s.detector.runIncremental();
    expect(await s.occurred()).toEqual([`vacancy.updated v1 ${iso(baselineAt + 5 * MINUTE)}`]);
  });

  it("is the stamp of a record created since the last pass, and of a soft delete", async () => {
    const s = await baselined();
    const start = s.clock.ms;
    s.advance(10 * MINUTE);
    await s.insert("v2", { modified: s.local(-MINUTE) });
    await s.detector.runIncremental();
    s.advance(10 * MINUTE);
    await s.update("v2", { deleted: 1, modified: s.local(-3 * MINUTE) });
    await s.detector.runIncremental();
    expect(await s.occurred()).toEqual([
      `vacancy.created v2 ${iso(start + 9 * MINUTE)}`,
      `vacancy.deleted v2 ${iso(start + 17 * MINUTE)}`,
    ]);
  });

  it("is the detection time when the stamp predates the last time the record was seen", async () => {
    const s = await baselined();
    s.advance(MINUTE);
    await s.update("v1", { title: "First", modified: s.local() });
    await s.detector.runIncremental();
    const seen = s.clock.ms;
    s.advance(MINUTE);
    // Still inside the overlap window, so the incremental pass reads it, but older than `seen`.
    await s.update("v1", { title: "Second", modified: s.local(-90_000) });
    await s.detector.runIncremental();
    expect(await s.occurred()).toEqual([
      `vacancy.updated v1 ${iso(seen)}`,
      `vacancy.updated v1 ${iso(s.clock.ms)}`,
    ]);
  });

  it("is the detection time when the stamp lies ahead of the detector's clock", async () => {
    const s = await baselined();
    s.advance(MINUTE);
    await s.update("v1", { title: "From a fast clock", modified: s.local(30 * MINUTE) });
    await s.detector.runIncremental();
    expect(await s.occurred()).toEqual([`vacancy.updated v1 ${iso(s.clock.ms)}`]);
  });

  it("is the detection time for a change the sweep found, even when its stamp moved", async () => {
    const s = await baselined();
    s.advance(10 * MINUTE);
    await s.update("v1", { title: "Swept", modified: s.local(-5 * MINUTE) });
    await s.detector.runSweep();
    await s.remove("v1");
    s.advance(MINUTE);
    await s.detector.runSweep();
    expect(await s.occurred()).toEqual([
      `vacancy.updated v1 ${iso(s.clock.ms - MINUTE)}`,
      `vacancy.deleted v1 ${iso(s.clock.ms)}`,
    ]);
  });

  it("is the detection time for a stamp in the repeated autumn hour", async () => {
    // 02:00 summer time on the night the clocks go back; the baseline is taken then.
    const s = await baselined("2024-10-27T00:00:00Z");
    // 02:45 winter time: "02:30" is now either 00:30 or 01:30 UTC.
    s.clock.ms = Date.parse("2024-10-27T01:45:00Z");
    await s.update("v1", { title: "At night", modified: "2024-10-27 02:30:00" });
    await s.detector.runIncremental();
    expect(await s.occurred()).toEqual([`vacancy.updated v1 2024-10-27T01:45:00.000+00:00`]);
  });
});
