import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventPayload } from "@svc/events";
import { eventSummary } from "@svc/testing";
import { instantOfLocal } from "@svc/time";
import { startEventsWorld, type EventsWorld } from "./support/events-world.ts";

// What occurred_at says for practice events, through the real detector, outbox, relay and events
// stream over a real MariaDB: the latest stamp of the practice's rows when the change was found
// by it, the detection time otherwise.
let w: EventsWorld;
beforeAll(async () => {
  w = await startEventsWorld({ incrementalMs: 200 });
  // The first pass records a baseline and reports nothing: wait for it.
  await w.baseline();
});
afterAll(() => w.close());

const at = (event: EventPayload) => Date.parse(event.occurred_at);

/** A primary practice (a primary row and its CRM row, committed together), reported as created. */
async function reportedPrimary(): Promise<string> {
  const id = `OCC-${randomUUID().slice(0, 8)}`;
  const stamp = w.local();
  const { events } = await w.timedStep(async () => {
    await w.write("START TRANSACTION");
    await w.write("INSERT INTO tbl_praktijk SET ?", [
      { crm_ref: id, naam: `Primair ${id}`, actief: 1, zichtbaar: 1, gewijzigd_op: stamp },
    ]);
    await w.write("INSERT INTO crm_bedrijf SET ?", [
      { crm_id: id, naam: `CRM ${id}`, gemeente: "Gent", gewijzigd_op: stamp },
    ]);
    await w.write("COMMIT");
    await w.incremental();
  });
  expect(eventSummary(events)).toEqual([`practice.created ${id}`]);
  return id;
}

describe("occurred_at of practice events", () => {
  it("is the latest modification time among the practice's changed rows", async () => {
    const id = await reportedPrimary();
    w.advance(60_000);
    const [older, newer] = [w.local(-40_000), w.local(-30_000)];
    const { events, before } = await w.timedStep(async () => {
      await w.write("START TRANSACTION");
      await w.write(
        "UPDATE crm_bedrijf SET gemeente = 'Gentbrugge', gewijzigd_op = ? WHERE crm_id = ?",
        [newer, id],
      );
      await w.write(
        "UPDATE tbl_praktijk SET naam = 'Hernoemd', gewijzigd_op = ? WHERE crm_ref = ?",
        [older, id],
      );
      await w.write("COMMIT");
      await w.incremental();
    });
    expect(eventSummary(events)).toEqual([`practice.updated ${id}`]);
    expect(at(events[0]!)).toBe(instantOfLocal(newer, w.config.TIME_ZONE));
    expect(at(events[0]!)).toBeLessThan(before);
  });

  it("is the detection time for a practice gone from both sources", async () => {
    const id = await reportedPrimary();
    w.advance(60_000);
    const { events, before, after } = await w.timedStep(async () => {
      await w.write("START TRANSACTION");
      await w.write("DELETE FROM tbl_praktijk WHERE crm_ref = ?", [id]);
      await w.write("DELETE FROM crm_bedrijf WHERE crm_id = ?", [id]);
      await w.write("COMMIT");
      await w.incremental();
      await w.sweep();
    });
    expect(eventSummary(events)).toEqual([`practice.deleted ${id}`]);
    expect(at(events[0]!)).toBeGreaterThanOrEqual(before);
    expect(at(events[0]!)).toBeLessThanOrEqual(after);
  });
});
