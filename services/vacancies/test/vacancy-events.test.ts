import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventPayload } from "@svc/events";
import { addDays, fixtures } from "@svc/sandbox";
import { eventSummary, expectEventPayload, expectEveryEventOnce } from "@svc/testing";
import { startEventsWorld, type EventsWorld } from "./support/events-world.ts";
import { TODAY, walkAll } from "./support/harness.ts";

// Every kind of legacy change, made in a real MariaDB, asserted as the exact set of events that
// reach the real events stream through the detector, the outbox and the relay (the contract's event
// payload).
const V = fixtures.vacancies;
const INCREMENTAL_MS = 200;
const DAY_MS = 86_400_000;

let w: EventsWorld;
beforeAll(async () => void (w = await startEventsWorld({ incrementalMs: INCREMENTAL_MS })));
afterAll(() => w.close());

const created = (uuid: string) => `vacancy.created ${uuid}`;
const updated = (uuid: string) => `vacancy.updated ${uuid}`;
const deleted = (uuid: string) => `vacancy.deleted ${uuid}`;

/** A vacancy the detector has already reported as created. */
async function reported(columns: Record<string, string | number | null> = {}): Promise<string> {
  let uuid = "";
  const events = await w.step(async () => {
    uuid = await w.insert(columns);
    await w.incremental();
  });
  expect(eventSummary(events)).toEqual([created(uuid)]);
  return uuid;
}

/**
 * One last modified a day ago, reported by a sweep: passes read by modification time only the rows
 * stamped within their windows (hours at most), so a later write that leaves this row's time alone
 * is invisible to them, as with an old row fixed by hand in SQL.
 */
async function reportedLongAgo(
  columns: Record<string, string | number | null> = {},
): Promise<string> {
  let uuid = "";
  const events = await w.step(async () => {
    uuid = await w.insert({ gewijzigd_op: w.local(-DAY_MS), ...columns });
    await w.sweep();
  });
  expect(eventSummary(events)).toEqual([created(uuid)]);
  return uuid;
}

function expectSpecShape(event: EventPayload, type: string, uuid: string): void {
  expectEventPayload(w, event, {
    type,
    entity: "vacancy",
    id: uuid,
    path: `/v1/vacancies/${uuid}`,
  });
}

describe("vacancy events in the stream", () => {
  it("records a baseline of the existing vacancies on the first run, without created events", async () => {
    await w.baseline();
    expect(w.stream.received).toEqual([]);
    const state = await w.pool.query<{ entity_id: string; recheck_on: string | null }>(
      "SELECT entity_id, recheck_on::text FROM vacancies.change_state WHERE NOT deleted",
    );
    const live = await walkAll(w.api, "", 100);
    expect(state.rows.map((r) => r.entity_id).sort()).toEqual(live.items.map((v) => v.uuid).sort());
    expect(state.rows.map((r) => r.entity_id)).not.toContain(V.softDeleted);
    // The one scheduled fixture (visible, display date tomorrow) is due for a recheck then.
    expect(state.rows.filter((r) => r.recheck_on !== null)).toEqual([
      { entity_id: V.displayDateFuture, recheck_on: addDays(TODAY, 1) },
    ]);
  });

  it("reports an inserted vacancy as vacancy.created in the event payload shape, with links.self pointing at it", async () => {
    let uuid = "";
    const events = await w.step(async () => {
      uuid = await w.insert({ kop_publiek: "Tandarts (m/v) Gent" });
      await w.incremental();
    });
    expect(events).toHaveLength(1);
    expectSpecShape(events[0]!, "vacancy.created", uuid);
    const self = await w.follow(events[0]!);
    expect(self.status).toBe(200);
    expect(self.body.data).toMatchObject({ uuid, title: "Tandarts (m/v) Gent" });
  });

  it("reports an update that touches the modification time as vacancy.updated, once", async () => {
    const uuid = await reported();
    w.advance(1_000);
    const events = await w.step(async () => {
      await w.update(uuid, { kop_publiek: "Mondhygiënist", gewijzigd_op: w.local() });
      await w.incremental();
      await w.incremental();
    });
    expect(eventSummary(events)).toEqual([updated(uuid)]);
    expectSpecShape(events[0]!, "vacancy.updated", uuid);
    expect((await w.follow(events[0]!)).body.data.title).toBe("Mondhygiënist");
  });

  it("reports an update that leaves the modification time alone in the next full sweep", async () => {
    const uuid = await reportedLongAgo();
    const quiet = await w.step(async () => {
      await w.update(uuid, { kop_publiek: "Fixed by hand in SQL" });
      await w.incremental();
    });
    expect(quiet).toEqual([]);
    const swept = await w.step(() => w.sweep());
    expect(eventSummary(swept)).toEqual([updated(uuid)]);
    expect((await w.follow(swept[0]!)).body.data.title).toBe("Fixed by hand in SQL");
  });

  it("reports a write that only moves the modification time, since updated_at is a contract field", async () => {
    const uuid = await reported();
    w.advance(1_000);
    const events = await w.step(async () => {
      await w.update(uuid, { gewijzigd_op: w.local() });
      await w.incremental();
    });
    expect(eventSummary(events)).toEqual([updated(uuid)]);
  });

  it("reports nothing for a change the response does not show (an internal name behind a public heading)", async () => {
    const uuid = await reported({ kop_publiek: "Assistent", naam_intern: "intern 1" });
    const events = await w.step(async () => {
      await w.update(uuid, { naam_intern: "intern 2" });
      await w.sweep();
      await w.incremental();
    });
    expect(events).toEqual([]);
  });

  it("reports a soft delete as vacancy.deleted from the incremental pass; links.self then answers 404", async () => {
    const uuid = await reported();
    w.advance(1_000);
    const events = await w.step(async () => {
      await w.update(uuid, { verwijderd: 1, gewijzigd_op: w.local() });
      await w.incremental();
      await w.sweep();
    });
    expect(eventSummary(events)).toEqual([deleted(uuid)]);
    expectSpecShape(events[0]!, "vacancy.deleted", uuid);
    expect((await w.follow(events[0]!)).status).toBe(404);
  });

  it("reports a soft delete that left the modification time alone in the next full sweep", async () => {
    const uuid = await reportedLongAgo();
    const quiet = await w.step(async () => {
      await w.update(uuid, { verwijderd: 1 });
      await w.incremental();
    });
    expect(quiet).toEqual([]);
    expect(eventSummary(await w.step(() => w.sweep()))).toEqual([deleted(uuid)]);
  });

  it("reports a hard delete as vacancy.deleted in the next full sweep, once", async () => {
    const uuid = await reportedLongAgo();
    const quiet = await w.step(async () => {
      await w.write("DELETE FROM tbl_vacature WHERE uuid = ?", [uuid]);
      await w.incremental();
    });
    expect(quiet).toEqual([]);
    const events = await w.step(async () => {
      await w.sweep();
      await w.sweep();
    });
    expect(eventSummary(events)).toEqual([deleted(uuid)]);
  });

  it("reports a renamed position label as vacancy.updated for each live vacancy with that position, in the sweep", async () => {
    await w.write(
      "INSERT INTO tbl_functie (functie_code, omschrijving, actief, volgorde) VALUES ('EVT', 'Evenementen', 1, 99)",
    );
    const [a, b] = [
      await reportedLongAgo({ functie_code: "EVT" }),
      await reportedLongAgo({ functie_code: "EVT" }),
    ];
    const hidden = await w.step(async () => {
      // Soft-deleted from the start: never reported.
      await w.insert({ functie_code: "EVT", verwijderd: 1 });
      await w.incremental();
      await w.sweep();
    });
    expect(hidden).toEqual([]);
    const quiet = await w.step(async () => {
      await w.write(
        "UPDATE tbl_functie SET omschrijving = 'Evenementenbureau' WHERE functie_code = 'EVT'",
      );
      await w.incremental();
    });
    expect(quiet).toEqual([]);
    const events = await w.step(() => w.sweep());
    expect(eventSummary(events)).toEqual([updated(a), updated(b)].sort());
    const self = await w.follow(events[0]!);
    expect(self.body.data).toMatchObject({ position: { code: "EVT", label: "Evenementenbureau" } });
  });

  it("reports a renamed province label as vacancy.updated in the sweep", async () => {
    await w.write(
      "INSERT INTO tbl_provincie (provincie_code, omschrijving, actief, volgorde) VALUES ('EVP', 'Evenementenland', 1, 99)",
    );
    const uuid = await reportedLongAgo({ provincie_code: "EVP" });
    const events = await w.step(async () => {
      await w.write(
        "UPDATE tbl_provincie SET omschrijving = 'Pays des événements' WHERE provincie_code = 'EVP'",
      );
      await w.incremental();
      await w.sweep();
    });
    expect(eventSummary(events)).toEqual([updated(uuid)]);
    expect((await w.follow(events[0]!)).body.data).toMatchObject({
      location: { province: { code: "EVP", label: "Pays des événements" } },
    });
  });

  it("reports a vacancy whose display date arrives as vacancy.updated; links.self then shows it published", async () => {
    const tomorrow = addDays(TODAY, 1);
    const scheduled = await reported({ publicatiedatum: tomorrow });
    await reported({ publicatiedatum: tomorrow, zichtbaar: 0 }); // invisible: nothing flips
    expect(
      (await w.api.get<{ data: { published: boolean } }>(`/v1/vacancies/${scheduled}`)).body.data
        .published,
    ).toBe(false);
    const events = await w.step(async () => {
      w.advance(DAY_MS);
      await w.incremental();
      await w.incremental();
    });
    expect(eventSummary(events)).toEqual([updated(scheduled), updated(V.displayDateFuture)].sort());
    for (const event of events)
      expect((await w.follow(event)).body.data).toMatchObject({
        uuid: event.entity.id,
        published: true,
      });
  });

  it("a legacy change reaches the stream within the incremental interval plus 1 s", async ({
    annotate,
  }) => {
    const latencies = await w.timesToStream(() => w.insert(), "vacancy.created");
    await annotate(
      `legacy insert → events stream: ${latencies.join(", ")} ms (incremental interval ${INCREMENTAL_MS} ms, relay poll ${w.config.RELAY_POLL_MS} ms)`,
    );
    expect(Math.max(...latencies)).toBeLessThan(INCREMENTAL_MS + 1_000);
  });

  it("put every event into the stream exactly once", async () => {
    await expectEveryEventOnce(w);
  });
});
