import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@svc/testing";
import { localOfInstant } from "@svc/time";
import { startEventsWorld, type EventsWorld } from "./support/events-world.ts";

// Practice rows stamped by clocks other than the source zone's, through a real MariaDB, the
// detector (quick passes every 250 ms), the outbox and the relay: each change must reach the
// events stream within the quick passes' latency, not wait for the sweep (7 days here).
const QUICK_LATENCY_MS = 2_000;
const HOUR_MS = 3_600_000;

let w: EventsWorld;
beforeAll(async () => {
  w = await startEventsWorld({ incrementalMs: 250 });
  await w.incremental(); // the baseline is in place
});
afterAll(() => w.close());

const count = (id: string, type: string) =>
  w.stream.received.filter((e) => e.entity.id === id && e.event_type === type).length;

/** How long after `write` an event of `type` for `id` reached the stream. */
async function latency(id: string, type: string, write: () => Promise<unknown>) {
  const before = count(id, type);
  const written = performance.now();
  await write();
  await waitFor(`${type} ${id}`, () => count(id, type) > before, 20_000);
  return performance.now() - written;
}

describe("practice change detection whatever clock stamped the change", () => {
  it("reports CRM rows stamped in UTC, an hour behind and an hour ahead within the quick-pass latency", async () => {
    const id = randomUUID();
    const onTime = { naam: `Praktijk ${id.slice(0, 8)}`, taal: "nl", gewijzigd_op: w.local() };
    await w.write("INSERT INTO crm_bedrijf SET ?", [{ crm_id: id, ...onTime }]);
    await waitFor("its created event", () => count(id, "practice.created") === 1, 20_000);
    const stamps = {
      utc: localOfInstant(w.now(), "UTC"),
      behind: w.local(-HOUR_MS),
      ahead: w.local(HOUR_MS),
    };
    for (const [clock, stamp] of Object.entries(stamps)) {
      const took = await latency(id, "practice.updated", () =>
        w.write("UPDATE crm_bedrijf SET naam = ?, gewijzigd_op = ? WHERE crm_id = ?", [
          `Praktijk (${clock})`,
          stamp,
          id,
        ]),
      );
      expect({ clock, fast: took < QUICK_LATENCY_MS }).toEqual({ clock, fast: true });
    }
  });
});
