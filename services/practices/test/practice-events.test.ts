import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventPayload } from "@svc/events";
import { addDays, fixtures } from "@svc/sandbox";
import type { Practice } from "../src/domain/practice.ts";
import { eventSummary, expectEventPayload, expectEveryEventOnce } from "@svc/testing";
import { startEventsWorld, type EventsWorld } from "./support/events-world.ts";
import { TODAY } from "./support/harness.ts";

// Every kind of legacy change to either practice source, made in a real MariaDB, asserted as the
// exact set of events that reach the real events stream (the contract's event payload).
const P = fixtures.practices;
const INCREMENTAL_MS = 200;
const DAY_MS = 86_400_000;

let w: EventsWorld;
beforeAll(async () => void (w = await startEventsWorld({ incrementalMs: INCREMENTAL_MS })));
afterAll(() => w.close());

const created = (id: string) => `practice.created ${id}`;
const updated = (id: string) => `practice.updated ${id}`;
const deleted = (id: string) => `practice.deleted ${id}`;

type Columns = Record<string, string | number | null>;

/** A CRM record with no primary row (a secondary practice), stamped `ago` ms before the clock. */
async function insertSecondary(columns: Columns = {}, ago = 0): Promise<string> {
  const id = randomUUID();
  const row = {
    crm_id: id,
    naam: `Praktijk ${id.slice(0, 8)}`,
    taal: "nl",
    periode_start: "2020-01-01",
    periode_stop: "2999-12-31",
    gewijzigd_op: w.local(-ago),
    ...columns,
  };
  await w.write("INSERT INTO crm_bedrijf SET ?", [row]);
  return id;
}

/**
 * A primary-system practice: one primary row and its CRM row, committed together, so the detector's
 * own passes (every INCREMENTAL_MS) never see the primary row alone.
 */
async function insertPrimary(id: string, ago = 0): Promise<string> {
  const stamp = w.local(-ago);
  await w.write("START TRANSACTION");
  await w.write("INSERT INTO tbl_praktijk SET ?", [
    {
      crm_ref: id,
      naam: `Primair ${id}`,
      actief: 1,
      zichtbaar: 1,
      taal: "nl",
      aangemaakt_op: stamp,
      gewijzigd_op: stamp,
    },
  ]);
  await w.write("INSERT INTO crm_bedrijf SET ?", [
    {
      crm_id: id,
      naam: `CRM ${id}`,
      straat: "Kouter 1",
      postcode: "9000",
      gemeente: "Gent",
      gewijzigd_op: stamp,
    },
  ]);
  await w.write("COMMIT");
  return id;
}

/** Inserts with `insert`, runs `pass`, expects exactly one practice.created. */
async function reported(
  insert: () => Promise<string>,
  pass: "incremental" | "sweep" = "incremental",
): Promise<string> {
  let id = "";
  const events = await w.step(async () => {
    id = await insert();
    await w[pass]();
  });
  expect(eventSummary(events)).toEqual([created(id)]);
  return id;
}

function expectSpecShape(event: EventPayload, type: string, id: string, path: string): void {
  expectEventPayload(w, event, { type, entity: "practice", id, path });
}

async function followed(event: EventPayload): Promise<Practice> {
  const res = await w.follow(event);
  expect(res.status, event.links.self).toBe(200);
  return res.body.data;
}

describe("practice events in the stream", () => {
  it("records a baseline of the existing practices on the first run, without created events", async () => {
    await w.baseline();
    expect(w.stream.received).toEqual([]);
    const state = await w.pool.query<{ entity_id: string }>(
      "SELECT entity_id FROM practices.change_state WHERE NOT deleted",
    );
    const live = await w.api.get<Practice[]>("/v1/practices?per_page=100");
    expect(live.body.meta.pagination?.total).toBeLessThan(100);
    expect(state.rows.map((r) => r.entity_id).sort()).toEqual(
      live.body.data.map((p) => p.practice_id).sort(),
    );
    // Tomorrow one secondary practice starts and one has stopped: both are due for a recheck then.
    const due = await w.pool.query<{ entity_id: string }>(
      "SELECT entity_id FROM practices.change_state WHERE recheck_on = $1",
      [addDays(TODAY, 1)],
    );
    expect(due.rows.map((r) => r.entity_id).sort()).toEqual(
      [P.secondaryFutureStart, P.secondaryStopsToday].sort(),
    );
  });

  it("reports a new CRM record without primary row as practice.created in the event payload shape; links.self returns it", async () => {
    let id = "";
    const events = await w.step(async () => {
      id = await insertSecondary({ naam: "Tandartspraktijk Nieuwpoort" });
      await w.incremental();
    });
    expect(events).toHaveLength(1);
    expectSpecShape(events[0]!, "practice.created", id, `/v1/practices/${id}`);
    expect(await followed(events[0]!)).toMatchObject({
      practice_id: id,
      name: "Tandartspraktijk Nieuwpoort",
      active: true,
    });
  });

  it("reports a new primary-system practice (primary row and CRM row) as one practice.created", async () => {
    await reported(() => insertPrimary(`EVT-${randomUUID().slice(0, 8)}`));
  });

  it("reports an update that touches the modification time as practice.updated, once", async () => {
    const id = await reported(() => insertSecondary());
    w.advance(1_000);
    const events = await w.step(async () => {
      await w.write(
        "UPDATE crm_bedrijf SET naam = 'Mondzorg Aan Zee', gewijzigd_op = ? WHERE crm_id = ?",
        [w.local(), id],
      );
      await w.incremental();
      await w.incremental();
    });
    expect(eventSummary(events)).toEqual([updated(id)]);
    expect(await followed(events[0]!)).toMatchObject({ name: "Mondzorg Aan Zee" });
  });

  it("reports an update that leaves the modification time alone in the next full sweep", async () => {
    const id = await reported(() => insertSecondary({}, DAY_MS), "sweep");
    const quiet = await w.step(async () => {
      await w.write("UPDATE crm_bedrijf SET telefoon = '09 111 22 33' WHERE crm_id = ?", [id]);
      await w.incremental();
    });
    expect(quiet).toEqual([]);
    const swept = await w.step(() => w.sweep());
    expect(eventSummary(swept)).toEqual([updated(id)]);
    expect(await followed(swept[0]!)).toMatchObject({ contact: { phone: "09 111 22 33" } });
  });

  it("reports nothing for a write that only restamps a row: the response has no modification time", async () => {
    const id = await reported(() => insertSecondary());
    w.advance(1_000);
    const events = await w.step(async () => {
      await w.write("UPDATE crm_bedrijf SET gewijzigd_op = ? WHERE crm_id = ?", [w.local(), id]);
      await w.incremental();
      await w.sweep();
    });
    expect(events).toEqual([]);
  });

  it("reports a changed CRM address of a primary-system practice: from the incremental pass when stamped, else in the sweep", async () => {
    w.advance(1_000);
    const stamped = await w.step(async () => {
      await w.write(
        "UPDATE crm_bedrijf SET straat = 'Veldstraat 10', gewijzigd_op = ? WHERE crm_id = ?",
        [w.local(), P.primaryComplete],
      );
      await w.incremental();
    });
    expect(eventSummary(stamped)).toEqual([updated(P.primaryComplete)]);
    const quiet = await w.step(async () => {
      await w.write("UPDATE crm_bedrijf SET gemeente = 'Gentbrugge' WHERE crm_id = ?", [
        P.multipleActiveRows,
      ]);
      await w.incremental();
    });
    expect(quiet).toEqual([]);
    const swept = await w.step(() => w.sweep());
    expect(eventSummary(swept)).toEqual([updated(P.multipleActiveRows)]);
    expect(await followed(swept[0]!)).toMatchObject({
      practice_id: P.multipleActiveRows,
      address: { city: "Gentbrugge" },
    });
  });

  it("reports a new TDM link (a row with no modification time) as practice.updated in the sweep", async () => {
    const events = await w.step(async () => {
      await w.write(
        "INSERT INTO tbl_praktijk_tdm (praktijk_id, tdm_ref) SELECT praktijk_id, 'TDM999001' FROM tbl_praktijk WHERE crm_ref = ? LIMIT 1",
        [P.tdmLinksNone],
      );
      await w.incremental();
      await w.sweep();
    });
    expect(eventSummary(events)).toEqual([updated(P.tdmLinksNone)]);
    expect((await followed(events[0]!)).external_refs.tdm_ids).toEqual(["TDM999001"]);
  });

  it("percent-encodes legacy ids in links.self, and the link returns the practice", async () => {
    w.advance(1_000);
    const ids = [P.legacyIdWithSlash, P.legacyIdWithSpace];
    const events = await w.step(async () => {
      for (const id of ids)
        await w.write(
          "UPDATE tbl_praktijk SET naam = CONCAT(naam, ' (nieuw)'), gewijzigd_op = ? WHERE crm_ref = BINARY ?",
          [w.local(), id],
        );
      await w.incremental();
    });
    expect(eventSummary(events)).toEqual(ids.map(updated).sort());
    const slash = events.find((e) => e.entity.id === P.legacyIdWithSlash)!;
    expectSpecShape(
      slash,
      "practice.updated",
      P.legacyIdWithSlash,
      "/v1/practices/ACC%2F2009%2F117",
    );
    const space = events.find((e) => e.entity.id === P.legacyIdWithSpace)!;
    expectSpecShape(space, "practice.updated", P.legacyIdWithSpace, "/v1/practices/OUD%200042");
    for (const e of events)
      expect(await followed(e)).toMatchObject({
        practice_id: e.entity.id,
        name: expect.stringMatching(/\(nieuw\)$/),
      });
  });

  it("reports a hard-deleted secondary practice as practice.deleted in the sweep; links.self then answers 404", async () => {
    const id = await reported(() => insertSecondary());
    const events = await w.step(async () => {
      await w.write("DELETE FROM crm_bedrijf WHERE crm_id = ?", [id]);
      await w.incremental();
      await w.sweep();
      await w.sweep();
    });
    expect(eventSummary(events)).toEqual([deleted(id)]);
    expectSpecShape(events[0]!, "practice.deleted", id, `/v1/practices/${id}`);
    expect((await w.follow(events[0]!)).status).toBe(404);
  });

  it("reports a primary practice whose primary rows are deleted but whose CRM record remains as updated, not deleted", async () => {
    const id = await reported(() => insertPrimary(`EVT-${randomUUID().slice(0, 8)}`));
    const events = await w.step(async () => {
      await w.write("DELETE FROM tbl_praktijk WHERE crm_ref = ?", [id]);
      await w.sweep();
    });
    expect(eventSummary(events)).toEqual([updated(id)]);
    expect(await followed(events[0]!)).toMatchObject({
      practice_id: id,
      name: `CRM ${id}`,
      coach: { reference: null },
      warnings: [],
    });
  });

  it("reports secondary practices whose period starts or ends as practice.updated with active flipped", async () => {
    const stopsToday = await reported(() => insertSecondary({ periode_stop: TODAY }));
    const events = await w.step(async () => {
      w.advance(DAY_MS);
      await w.incremental();
      await w.incremental();
    });
    expect(eventSummary(events)).toEqual(
      [updated(P.secondaryFutureStart), updated(P.secondaryStopsToday), updated(stopsToday)].sort(),
    );
    const active = new Map<string, boolean>();
    for (const e of events) active.set(e.entity.id, (await followed(e)).active);
    expect(Object.fromEntries(active)).toEqual({
      [P.secondaryFutureStart]: true,
      [P.secondaryStopsToday]: false,
      [stopsToday]: false,
    });
  });

  it("a legacy change reaches the stream within the incremental interval plus 1 s", async ({
    annotate,
  }) => {
    const latencies = await w.timesToStream(() => insertSecondary(), "practice.created");
    await annotate(
      `legacy insert → events stream: ${latencies.join(", ")} ms (incremental interval ${INCREMENTAL_MS} ms, relay poll ${w.config.RELAY_POLL_MS} ms)`,
    );
    expect(Math.max(...latencies)).toBeLessThan(INCREMENTAL_MS + 1_000);
  });

  it("put every event into the stream exactly once", async () => {
    await expectEveryEventOnce(w);
  });
});
