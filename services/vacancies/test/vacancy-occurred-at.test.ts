import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventPayload } from "@svc/events";
import { addDays } from "@svc/sandbox";
import { eventSummary } from "@svc/testing";
import { instantOfLocal } from "@svc/time";
import { startEventsWorld, type EventsWorld } from "./support/events-world.ts";
import { TODAY } from "./support/harness.ts";

// What occurred_at says for vacancy events, through the real detector, outbox, relay and events
// stream over a real MariaDB: the primary system's stamp when the change was found by it, the
// detection time otherwise.
const DAY_MS = 86_400_000;

let w: EventsWorld;
beforeAll(async () => {
  w = await startEventsWorld({ incrementalMs: 200 });
  // The first pass records a baseline and reports nothing: wait for it.
  await w.baseline();
});
afterAll(() => w.close());

const at = (event: EventPayload) => Date.parse(event.occurred_at);

/** A vacancy the detector has reported as created, stamped `ago` ms before the clock. */
async function reported(columns: Record<string, string | number | null> = {}, ago = 0) {
  let uuid = "";
  const events = await w.step(async () => {
    uuid = await w.insert({ gewijzigd_op: w.local(-ago), ...columns });
    await (ago > 0 ? w.sweep() : w.incremental());
  });
  expect(eventSummary(events)).toEqual([`vacancy.created ${uuid}`]);
  return uuid;
}

describe("occurred_at of vacancy events", () => {
  it("is the primary system's modification time (the vacancy's updated_at) for an update found by it", async () => {
    const uuid = await reported();
    w.advance(60_000);
    // Stamped 20 s before the detector looks, as a writer's slow commit would.
    const stamp = w.local(-20_000);
    const { events, before } = await w.timedStep(async () => {
      await w.update(uuid, { kop_publiek: "Tandarts Brugge", gewijzigd_op: stamp });
      await w.incremental();
    });
    expect(eventSummary(events)).toEqual([`vacancy.updated ${uuid}`]);
    expect(at(events[0]!)).toBe(instantOfLocal(stamp, w.config.TIME_ZONE));
    expect(at(events[0]!)).toBeLessThan(before);
    const self = await w.follow(events[0]!);
    const data = self.body.data as unknown as { updated_at: string };
    expect(Date.parse(data.updated_at)).toBe(at(events[0]!));
  });

  it("is the detection time for an update and a hard delete the full sweep found", async () => {
    const uuid = await reported({}, DAY_MS);
    const fixed = await w.timedStep(async () => {
      await w.update(uuid, { kop_publiek: "Fixed by hand in SQL" });
      await w.sweep();
    });
    expect(eventSummary(fixed.events)).toEqual([`vacancy.updated ${uuid}`]);
    expect(at(fixed.events[0]!)).toBeGreaterThanOrEqual(fixed.before);
    expect(at(fixed.events[0]!)).toBeLessThanOrEqual(fixed.after);
    const gone = await w.timedStep(async () => {
      await w.write("DELETE FROM tbl_vacature WHERE uuid = ?", [uuid]);
      await w.sweep();
    });
    expect(eventSummary(gone.events)).toEqual([`vacancy.deleted ${uuid}`]);
    expect(at(gone.events[0]!)).toBeGreaterThanOrEqual(gone.before);
    expect(at(gone.events[0]!)).toBeLessThanOrEqual(gone.after);
  });

  it("is the detection time when published turns true on the display date", async () => {
    const uuid = await reported({ publicatiedatum: addDays(TODAY, 3) });
    const { events, before, after } = await w.timedStep(async () => {
      w.advance(3 * DAY_MS);
      await w.incremental();
    });
    const mine = events.filter((e) => e.entity.id === uuid);
    expect(eventSummary(mine)).toEqual([`vacancy.updated ${uuid}`]);
    expect(at(mine[0]!)).toBeGreaterThanOrEqual(before + 3 * DAY_MS);
    expect(at(mine[0]!)).toBeLessThanOrEqual(after);
  });
});
