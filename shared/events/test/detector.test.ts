import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE_URL, openWorld, scenario } from "./support/detector-fixtures.ts";
import type { DetectorWorld } from "./support/detector-fixtures.ts";

let world: DetectorWorld;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => void (world = await openWorld()));
afterAll(async () => {
  for (const close of closers) await close();
  await world.close();
});

async function fresh(options?: Parameters<typeof scenario>[1], digests = sweepByDigest) {
  const s = await scenario(world, options, { digests });
  closers.push(s.close);
  return s;
}

const MINUTE = 60_000;
/** Whether the describe block being collected runs its scenarios on a source with digests. */
let sweepByDigest = false;

// Every behaviour holds alike for a full sweep and a sweep by digest.
describe.each([{ digests: false }, { digests: true }])(
  "change detection, sweep digests: $digests",
  ({ digests }) => {
    beforeAll(() => void (sweepByDigest = digests));
    it("records a baseline on the first run without events, then reports an insert as created once", async () => {
      const s = await fresh();
      await s.insert("v1", { modified: s.local(-60 * MINUTE) });
      await s.insert("v2", { modified: null });
      expect(await s.detector.runIncremental()).toMatchObject({
        kind: "baseline",
        examined: 2,
        created: 0,
      });
      expect(await s.events()).toEqual([]);

      s.advance(MINUTE);
      await s.insert("v3");
      s.advance(1_000);
      expect(await s.detector.runIncremental()).toMatchObject({ kind: "incremental", created: 1 });
      await s.detector.runIncremental();
      await s.detector.runSweep();
      expect(await s.events()).toEqual(["vacancy.created v3"]);
    });

    it("emits created for every existing record on the first run when emitCreatedOnBaseline is set", async () => {
      const s = await fresh({ emitCreatedOnBaseline: true });
      await s.insert("v1");
      await s.insert("v2");
      await s.detector.runIncremental();
      await s.detector.runIncremental();
      expect((await s.events()).sort()).toEqual(["vacancy.created v1", "vacancy.created v2"]);
    });

    it("reports an update that touches the modification time, and nothing for a change outside the contract", async () => {
      const s = await fresh();
      await s.insert("v1", { modified: s.local(-60 * MINUTE) });
      await s.detector.runIncremental();
      s.advance(MINUTE);
      await s.update("v1", { title: "Nurse (night shifts)", modified: s.local() });
      const detectedAt = s.clock.ms;
      expect(await s.detector.runIncremental()).toMatchObject({ updated: 1 });
      s.advance(MINUTE);
      await s.update("v1", { internal_note: "call back on Monday", modified: s.local() });
      expect(await s.detector.runIncremental()).toMatchObject({ examined: 1, updated: 0 });
      await s.detector.runSweep();
      expect(await s.events()).toEqual(["vacancy.updated v1"]);

      const { rows } = await world.pool.query(`SELECT payload FROM "${s.schema}".outbox`);
      expect(rows[0].payload).toMatchObject({
        event_type: "vacancy.updated",
        entity: { type: "vacancy", id: "v1" },
        links: { self: `${BASE_URL}/v1/vacancies/v1` },
        occurred_at: new Date(detectedAt).toISOString().replace("Z", "+00:00"),
      });
    });

    it("catches an update that did not touch the modification time in the full sweep", async () => {
      const s = await fresh();
      await s.insert("v1", { modified: s.local(-60 * MINUTE) });
      await s.insert("v2", { modified: null });
      await s.detector.runIncremental();
      s.advance(MINUTE);
      await s.update("v1", { title: "Fixed by hand in SQL" });
      await s.update("v2", { title: "Never stamped" });
      expect(await s.detector.runIncremental()).toMatchObject({ updated: 0 });
      expect(await s.detector.runSweep()).toMatchObject({ kind: "sweep", updated: 2 });
      await s.detector.runSweep();
      expect((await s.events()).sort()).toEqual(["vacancy.updated v1", "vacancy.updated v2"]);
    });

    it("reports a change of a joined row in the sweep, for every record that shows it", async () => {
      const s = await fresh();
      await s.practice(1, "Practice One");
      await s.practice(2, "Practice Two");
      await s.insert("v1", { practice_id: 1, modified: s.local(-60 * MINUTE) });
      await s.insert("v2", { practice_id: 1, modified: s.local(-60 * MINUTE) });
      await s.insert("v3", { practice_id: 2, modified: s.local(-60 * MINUTE) });
      await s.detector.runIncremental();
      await s.practice(1, "Practice One (renamed)");
      s.advance(MINUTE);
      expect(await s.detector.runIncremental()).toMatchObject({ updated: 0 });
      await s.detector.runSweep();
      expect((await s.events()).sort()).toEqual(["vacancy.updated v1", "vacancy.updated v2"]);
    });

    it("reports a soft delete (incremental) and a hard delete (sweep) once each, and a restored record as created", async () => {
      const s = await fresh();
      for (const id of ["v1", "v2", "v3"]) await s.insert(id, { modified: s.local(-60 * MINUTE) });
      await s.detector.runIncremental();
      s.advance(MINUTE);
      await s.update("v1", { deleted: 1, modified: s.local() });
      await s.remove("v2");
      expect(await s.detector.runIncremental()).toMatchObject({ deleted: 1 });
      expect(await s.detector.runSweep()).toMatchObject({ deleted: 1 });
      await s.detector.runSweep();
      await s.detector.runIncremental();
      s.advance(MINUTE);
      await s.update("v1", { deleted: 0, modified: s.local() });
      await s.detector.runIncremental();
      expect(await s.events()).toEqual([
        "vacancy.deleted v1",
        "vacancy.deleted v2",
        "vacancy.created v1",
      ]);
    });

    it("reports a vacancy whose display date arrives as updated, at Brussels midnight, with no source write", async () => {
      const s = await fresh();
      s.clock.ms = Date.parse("2024-06-10T08:00:00Z");
      await s.insert("v1", { display_date: "2024-06-11", modified: s.local(-60 * MINUTE) });
      await s.insert("v2", { display_date: "2024-06-12", modified: s.local(-60 * MINUTE) });
      await s.detector.runIncremental();
      s.clock.ms = Date.parse("2024-06-10T21:59:30Z"); // 23:59:30 in Brussels
      expect(await s.detector.runIncremental()).toMatchObject({ updated: 0 });
      // 00:00:30 on the 11th in Brussels, still the 10th in UTC.
      s.clock.ms = Date.parse("2024-06-10T22:00:30Z");
      expect(await s.detector.runIncremental()).toMatchObject({ updated: 1 });
      await s.detector.runIncremental();
      await s.detector.runSweep();
      expect(await s.events()).toEqual(["vacancy.updated v1"]);
      const { rows } = await world.pool.query(
        `SELECT entity_id, recheck_on::text FROM "${s.schema}".change_state ORDER BY entity_id`,
      );
      expect(rows).toEqual([
        { entity_id: "v1", recheck_on: null },
        { entity_id: "v2", recheck_on: "2024-06-12" },
      ]);
    });

    it("re-reads every due record when more are due than fit in one batch, and reports a due record gone as deleted", async () => {
      const s = await fresh({ batchSize: 2 });
      for (const id of ["v1", "v2", "v3", "v4", "v5"])
        await s.insert(id, { display_date: "2024-06-11", modified: s.local(-60 * MINUTE) });
      await s.detector.runIncremental();
      await s.remove("v5");
      s.clock.ms = Date.parse("2024-06-11T06:00:00Z");
      expect(await s.detector.runIncremental()).toMatchObject({ updated: 4, deleted: 1 });
      await s.detector.runIncremental();
      expect((await s.events()).sort()).toEqual([
        "vacancy.deleted v5",
        ...["v1", "v2", "v3", "v4"].map((id) => `vacancy.updated ${id}`),
      ]);
    });

    it("finds every hard delete when the state holds more records than one page of sweep candidates", async () => {
      // batchSize 2: the sweep reads its delete candidates 20 at a time and re-reads them 2 at a time.
      const s = await fresh({ batchSize: 2 });
      const ids = Array.from({ length: 25 }, (_, i) => `v${String(i).padStart(2, "0")}`);
      for (const id of ids) await s.insert(id, { modified: s.local(-60 * MINUTE) });
      await s.detector.runIncremental();
      const gone = ["v00", "v07", "v19", "v20", "v24"];
      for (const id of gone) await s.remove(id);
      s.advance(MINUTE);
      expect(await s.detector.runSweep()).toMatchObject({ deleted: gone.length, updated: 0 });
      expect(await s.detector.runSweep()).toMatchObject({ deleted: 0 });
      expect((await s.events()).sort()).toEqual(gone.map((id) => `vacancy.deleted ${id}`));
    });

    it("keeps reading rows stamped by a writer whose clock runs ahead, without skipping later rows", async () => {
      const s = await fresh();
      await s.insert("v0", { modified: s.local(-60 * MINUTE) });
      await s.detector.runIncremental();
      s.advance(MINUTE);
      await s.insert("ahead", { modified: s.local(60 * MINUTE) });
      await s.detector.runIncremental();
      s.advance(MINUTE);
      await s.insert("later", { modified: s.local() });
      await s.detector.runIncremental();
      expect(await s.events()).toEqual(["vacancy.created ahead", "vacancy.created later"]);
    });

    it("commits state and events together: a batch that fails before commit leaves neither, and is reported later", async () => {
      const s = await fresh();
      await s.insert("v1", { modified: s.local(-60 * MINUTE) });
      await s.detector.runIncremental();
      const state = () =>
        world.pool
          .query(`SELECT encode(hash, 'hex') AS h FROM "${s.schema}".change_state`)
          .then((r) => r.rows);
      const before = await state();
      s.advance(MINUTE);
      await s.update("v1", { title: "Changed", modified: s.local() });
      const failing = async () => {
        throw new Error("not leader any more");
      };
      await expect(s.detector.runIncremental({ fence: failing })).rejects.toThrow(
        "not leader any more",
      );
      expect(await state()).toEqual(before);
      expect(await s.events()).toEqual([]);
      await s.detector.runIncremental();
      expect(await s.events()).toEqual(["vacancy.updated v1"]);
    });
  },
);

describe("sweep by digest", () => {
  it("reads in full only the records whose digest changed; a change outside the contract is not read", async () => {
    const s = await fresh({}, true);
    for (const id of ["v1", "v2", "v3"]) await s.insert(id, { modified: s.local(-60 * MINUTE) });
    expect(await s.detector.runSweep()).toMatchObject({ kind: "baseline", examined: 3 });
    s.advance(MINUTE);
    await s.update("v1", { internal_note: "outside the contract" });
    await s.update("v2", { title: "Fixed by hand in SQL" });
    s.source.fetched.length = 0;
    expect(await s.detector.runSweep()).toMatchObject({ examined: 3, updated: 1 });
    expect(s.source.fetched).toEqual([["v2"]]);
    expect(await s.events()).toEqual(["vacancy.updated v2"]);
    expect(s.source.digestPages.flat().sort()).toEqual(["v1", "v2", "v3"]);
  });

  it("reads a record again when its recheck date has come, though its digest is the same", async () => {
    const s = await fresh({}, true);
    await s.insert("v1", { display_date: "2024-06-11", modified: s.local(-60 * MINUTE) });
    await s.insert("v2", { display_date: "2024-06-20", modified: s.local(-60 * MINUTE) });
    await s.detector.runSweep();
    s.clock.ms = Date.parse("2024-06-11T06:00:00Z");
    s.source.fetched.length = 0;
    expect(await s.detector.runSweep()).toMatchObject({ updated: 1 });
    expect(s.source.fetched).toEqual([["v1"]]);
    expect(await s.events()).toEqual(["vacancy.updated v1"]);
  });

  it("sweeps in full when the digest version changes, storing the new version", async () => {
    const s = await fresh({}, true);
    for (const id of ["v1", "v2"]) await s.insert(id, { modified: s.local(-60 * MINUTE) });
    await s.detector.runSweep();
    s.source.digests = { ...s.source.digests!, version: "test 2" };
    s.source.fetched.length = 0;
    s.source.digestPages.length = 0;
    await s.detector.runSweep();
    expect(s.source.digestPages).toEqual([]);
    const cursor = await world.pool.query(`SELECT digest_version FROM "${s.schema}".change_cursor`);
    expect(cursor.rows).toEqual([{ digest_version: "test 2" }]);
    await s.detector.runSweep();
    expect(s.source.digestPages.flat().sort()).toEqual(["v1", "v2"]);
    expect(s.source.fetched).toEqual([]);
  });

  it("reads every record whose state holds no digest once, then stores the digests", async () => {
    const s = await fresh({}, true);
    for (const id of ["v1", "v2"]) await s.insert(id, { modified: s.local(-60 * MINUTE) });
    await s.detector.runSweep();
    // State written before the source had digests (or by a pass that read none).
    await world.pool.query(`UPDATE "${s.schema}".change_state SET source_digest = NULL`);
    s.source.fetched.length = 0;
    expect(await s.detector.runSweep()).toMatchObject({ updated: 0 });
    expect(s.source.fetched.flat().sort()).toEqual(["v1", "v2"]);
    s.source.fetched.length = 0;
    await s.detector.runSweep();
    expect(s.source.fetched).toEqual([]);
    expect(await s.events()).toEqual([]);
  });
});
