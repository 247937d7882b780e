import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@svc/testing";
import { localOfInstant } from "@svc/time";
import { startEventsWorld, type EventsWorld } from "./support/events-world.ts";

// Changes stamped by clocks other than the source zone's, through a real MariaDB, the detector
// with its default schedule, the outbox and the relay: each must reach the events stream within
// the quick passes' latency, not wait for the sweep (7 days here).
const QUICK_LATENCY_MS = 2_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The schedule's overlap pass, which is when a due sweep starts. */
const OVERLAP_EVERY_MS = 5_000;

let w: EventsWorld;
beforeAll(async () => {
  w = await startEventsWorld();
  await w.incremental(); // the baseline is in place
});
afterAll(() => w.close());

const count = (uuid: string, type: string) =>
  w.stream.received.filter((e) => e.entity.id === uuid && e.event_type === type).length;

/** Runs `write` and returns how long its update event took to reach the stream. */
async function latency(uuid: string, write: () => Promise<unknown>) {
  const before = count(uuid, "vacancy.updated");
  const written = performance.now();
  await write();
  await waitFor(`an update of ${uuid}`, () => count(uuid, "vacancy.updated") > before, 20_000);
  return performance.now() - written;
}

/** A vacancy stamped on time and already reported as created. */
async function reported(): Promise<string> {
  const uuid = await w.insert();
  await waitFor("its created event", () => count(uuid, "vacancy.created") === 1, 20_000);
  return uuid;
}

/** The quick passes' results over `ms`. */
async function quickPassesDuring(ms: number) {
  const seen = new Set<object>();
  for (const end = performance.now() + ms; performance.now() < end;) {
    const last = w.pipeline.detector.stats().last;
    if (last?.kind === "quick") seen.add(last);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return [...seen] as Array<{ examined: number }>;
}

describe("change detection whatever clock stamped the change", () => {
  it("reports a row stamped an hour behind the source zone within the quick-pass latency", async () => {
    const onTime = await reported(); // the newest stamp is the source zone's present
    const written = performance.now();
    const uuid = await w.insert({ gewijzigd_op: w.local(-HOUR_MS) });
    await waitFor("its created event", () => count(uuid, "vacancy.created") === 1, 20_000);
    expect(performance.now() - written).toBeLessThan(QUICK_LATENCY_MS);
    const updated = await latency(onTime, () =>
      w.update(onTime, { kop_publiek: "Behind", gewijzigd_op: w.local(-HOUR_MS) }),
    );
    expect(updated).toBeLessThan(QUICK_LATENCY_MS);
  });

  it("reports a row stamped in UTC (NOW() on a UTC server) within the quick-pass latency", async () => {
    const uuid = await reported();
    const utc = localOfInstant(w.now(), "UTC");
    expect(utc < w.local()).toBe(true); // Brussels in June: UTC reads two hours earlier
    const updated = await latency(uuid, () =>
      w.update(uuid, { kop_publiek: "Stamped in UTC", gewijzigd_op: utc }),
    );
    expect(updated).toBeLessThan(QUICK_LATENCY_MS);
  });

  it("reports a row stamped an hour ahead, then again when that clock is set back, without reading it on every pass", async () => {
    const uuid = await reported();
    const ahead = await latency(uuid, () =>
      w.update(uuid, { kop_publiek: "Ahead", gewijzigd_op: w.local(HOUR_MS) }),
    );
    expect(ahead).toBeLessThan(QUICK_LATENCY_MS);
    const setBack = await latency(uuid, () =>
      w.update(uuid, { kop_publiek: "Set back", gewijzigd_op: w.local() }),
    );
    expect(setBack).toBeLessThan(QUICK_LATENCY_MS);
    const otherAhead = await latency(uuid, () =>
      w.update(uuid, { kop_publiek: "Ahead again", gewijzigd_op: w.local(HOUR_MS) }),
    );
    expect(otherAhead).toBeLessThan(QUICK_LATENCY_MS);
    // Once settled, an hour-ahead version is skipped like any other: quiet quick passes read no
    // record in full (at a million rows an ahead clock would otherwise re-read an hour of writes).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const quiet = await quickPassesDuring(1_500);
    expect(quiet.length).toBeGreaterThan(1);
    expect(quiet.map((p) => p.examined)).toEqual(quiet.map(() => 0));
  });
});

describe("a change that leaves the stamp alone", () => {
  const SWEEP_MS = 4_000;
  let s: EventsWorld;
  beforeAll(async () => {
    s = await startEventsWorld({ sweepMs: SWEEP_MS });
    await s.incremental();
  });
  afterAll(() => s.close());

  it("is reported by the next sweep, within the sweep interval and one overlap pass", async () => {
    // Last stamped a day ago: outside every window a pass reads by stamp.
    const uuid = await s.insert({ gewijzigd_op: s.local(-DAY_MS) });
    const ofRow = (type: string) =>
      s.stream.received.filter((e) => e.entity.id === uuid && e.event_type === type).length;
    await waitFor("its created event", () => ofRow("vacancy.created") === 1, 20_000);
    const sweptAt = async () => {
      const { rows } = await s.pool.query<{ swept_at: Date | null }>(
        "SELECT swept_at FROM vacancies.change_cursor WHERE source = 'vacancies'",
      );
      return rows[0]?.swept_at?.getTime() ?? 0;
    };
    const sweptBefore = await sweptAt();
    const written = performance.now();
    await s.update(uuid, { kop_publiek: "Fixed by hand in SQL" });
    await waitFor("its updated event", () => ofRow("vacancy.updated") === 1, 20_000);
    const took = performance.now() - written;
    const arrived = s.now(); // the world's clock, the one a pass stamps itself with
    expect(took).toBeLessThan(SWEEP_MS + OVERLAP_EVERY_MS + QUICK_LATENCY_MS);
    // A sweep found it: the next sweep recorded after the write started before the event arrived
    // (one that started just before the write may read the row after the update committed). A
    // sweep records itself after the changes it found, which may reach the stream first.
    const recorded = await waitFor("the sweep to record itself", async () => {
      const at = await sweptAt();
      return at > sweptBefore ? at : undefined;
    });
    expect(recorded).toBeLessThanOrEqual(arrived);
  });
});
