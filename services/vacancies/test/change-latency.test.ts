import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sleep, waitFor } from "@svc/testing";
import { startEventsWorld, type EventsWorld } from "./support/events-world.ts";

// Change → events stream with the default schedule (quick passes every DETECTOR_INCREMENTAL_MS,
// the overlap pass every 5 s), through a real MariaDB, the detector, the outbox and the relay.
// The bounds are generous for a loaded CI machine; the median still tells quick passes from the
// overlap pass alone (which would put it near 2.5 s).
const UPDATES = 8;

let w: EventsWorld;
beforeAll(async () => void (w = await startEventsWorld()));
afterAll(() => w.close());

describe("legacy change to event latency with the default schedule", () => {
  it("reports each of several updates to a real legacy row once, each within seconds, half within 2 s", async ({
    annotate,
  }) => {
    expect(w.config.DETECTOR_INCREMENTAL_MS).toBeLessThanOrEqual(250);
    await w.incremental(); // the baseline is in place: a row inserted before it raises no event
    const uuid = await w.insert();
    const ofRow = (type: string) =>
      w.stream.received.filter((e) => e.entity.id === uuid && e.event_type === type).length;
    await waitFor("the created event", () => ofRow("vacancy.created") === 1, 20_000);

    const latencies: number[] = [];
    for (let i = 1; i <= UPDATES; i += 1) {
      // A different phase against the pass schedule each time.
      await sleep(Math.round(Math.random() * 400));
      const written = performance.now();
      await w.update(uuid, { kop_publiek: `Vacature, wijziging ${i}`, gewijzigd_op: w.local() });
      await waitFor(`update ${i} in the stream`, () => ofRow("vacancy.updated") >= i, 10_000);
      latencies.push(Math.round(performance.now() - written));
    }
    await annotate(`legacy update → events stream: ${latencies.join(", ")} ms`);
    await w.stream.settle(w.pool, "vacancies");
    expect(ofRow("vacancy.updated")).toBe(UPDATES);
    const sorted = [...latencies].sort((a, b) => a - b);
    expect(sorted[Math.floor(UPDATES / 2)]).toBeLessThan(2_000);
  });
});
