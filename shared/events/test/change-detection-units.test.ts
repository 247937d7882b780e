import { describe, expect, it } from "vitest";
import { canonicalHash, canonicalJson } from "../src/index.ts";
import { shiftLocal } from "../src/change-detection/local-time.ts";
import { observe, planChanges } from "../src/change-detection/plan.ts";
import { readAhead } from "../src/change-detection/read-ahead.ts";
import type { StateRow } from "../src/change-detection/plan.ts";

describe("canonical hash", () => {
  it("is the same whatever order a mapper built the object in, at every depth", () => {
    const a = { title: "Nurse", practice: { name: "P", type: "Primary" }, tags: ["b", "a"] };
    const b = { tags: ["b", "a"], practice: { type: "Primary", name: "P" }, title: "Nurse" };
    expect(canonicalJson(a)).toBe(
      '{"practice":{"name":"P","type":"Primary"},"tags":["b","a"],"title":"Nurse"}',
    );
    expect(canonicalHash(a).equals(canonicalHash(b))).toBe(true);
  });

  it("tells apart values JSON tells apart, and ignores undefined properties as JSON does", () => {
    expect(canonicalHash({ a: null }).equals(canonicalHash({}))).toBe(false);
    expect(canonicalHash({ a: undefined }).equals(canonicalHash({}))).toBe(true);
    expect(canonicalHash({ a: ["x", "y"] }).equals(canonicalHash({ a: ["y", "x"] }))).toBe(false);
    expect(canonicalHash({ a: 1 }).equals(canonicalHash({ a: "1" }))).toBe(false);
    expect(canonicalHash({ a: 1 })).toHaveLength(32);
  });

  // The state tables hold hashes of this exact serialisation: a byte moved would report every
  // record updated at the next sweep.
  it("keeps the bytes and the hash a state table already holds", () => {
    const record = {
      uuid: "0b7c7a1e-5d2f-4c1a-9a51-3c2f7d1e9b10",
      title: "Verpleegkundige \u2014 nacht",
      content: {
        intro: '<p>Zorg & "welzijn"</p>\n',
        profile: null,
        tasks: "\u00e9\u2028\u00fc\u{1f600}",
      },
      practice: { type: null, name: "Praktijk 't Hof", legacy_reference: "P-1" },
      location: {
        province: { label: "Antwerpen", code: "ANT" },
        latitude: null,
        region: undefined,
      },
      employment: { time: { value: "full_time", code: "VT" } },
      published: true,
      visible: false,
      status: { code: "1", value: "created" },
      display_date: "2026-01-02",
      updated_at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
      tags: ["b", undefined, "a", { z: 1, Z: 2, "10": 3, "9": 4 }],
      seeking_nurse_code: null,
    };
    expect(canonicalJson(record)).toBe(
      '{"content":{"intro":"<p>Zorg & \\"welzijn\\"</p>\\n","profile":null,"tasks":"\u00e9\u2028\u00fc\u{1f600}"},"display_date":"2026-01-02","employment":{"time":{"code":"VT","value":"full_time"}},"location":{"latitude":null,"province":{"code":"ANT","label":"Antwerpen"}},"practice":{"legacy_reference":"P-1","name":"Praktijk \'t Hof","type":null},"published":true,"seeking_nurse_code":null,"status":{"code":"1","value":"created"},"tags":["b",null,"a",{"10":3,"9":4,"Z":2,"z":1}],"title":"Verpleegkundige \u2014 nacht","updated_at":"2026-01-02T03:04:05.000Z","uuid":"0b7c7a1e-5d2f-4c1a-9a51-3c2f7d1e9b10","visible":false}',
    );
    expect(canonicalHash(record).toString("hex")).toBe(
      "5084830178530cbe5de8a8293961b35563e669d407266c71c0ccb9bbc31ed42c",
    );
  });

  it("serialises edge values as JSON.stringify does, with keys in code-unit order", () => {
    const cases: Array<[unknown, string]> = [
      [undefined, "null"],
      [null, "null"],
      [-0, "0"],
      [Number.NaN, "null"],
      [[undefined, () => 1, Symbol("s")], "[null,null,null]"],
      [{ a: () => 1, b: undefined }, "{}"],
      [{ b: undefined, a: 1 }, '{"a":1}'],
      // Key sets that share a first key, or hold the same keys in another order, are told apart.
      [{ a: 2, c: 3 }, '{"a":2,"c":3}'],
      [{ a: 2, c: 3, b: 1 }, '{"a":2,"b":1,"c":3}'],
      [{ c: 3, a: 2 }, '{"a":2,"c":3}'],
      [{ "\u00e9": 1, z: 2, B: 3, a: 4, "": 5 }, '{"":5,"B":3,"a":4,"z":2,"\u00e9":1}'],
      [
        { d: new Date(0), buf: Buffer.from("hi") },
        '{"buf":{"data":[104,105],"type":"Buffer"},"d":"1970-01-01T00:00:00.000Z"}',
      ],
    ];
    for (const [value, json] of cases) expect(canonicalJson(value)).toBe(json);
  });
});

describe("change plan", () => {
  const row = (id: string, canonical: object, extra: Partial<StateRow> = {}): StateRow => ({
    entityId: id,
    hash: canonicalHash(canonical),
    recheckOn: null,
    deleted: false,
    digest: null,
    ...extra,
  });

  it("plans created, updated and deleted only for contract changes, and remembers a new recheck date silently", () => {
    const state = new Map([
      ["same", row("same", { t: 1 })],
      ["changed", row("changed", { t: 1 })],
      ["gone", row("gone", { t: 1 })],
      ["gone-before", row("gone-before", { t: 1 }, { deleted: true })],
      ["rescheduled", row("rescheduled", { t: 1 })],
    ]);
    const plan = planChanges(
      observe([
        { id: "same", canonical: { t: 1 } },
        { id: "changed", canonical: { t: 2 } },
        { id: "gone", canonical: null },
        { id: "gone-before", canonical: null },
        { id: "new", canonical: { t: 1 } },
        { id: "rescheduled", canonical: { t: 1 }, recheckOn: "2024-07-01" },
      ]),
      state,
      false,
    );
    expect(plan.events).toEqual([
      { id: "changed", change: "updated" },
      { id: "gone", change: "deleted" },
      { id: "new", change: "created" },
    ]);
    expect(plan.writes.map((w) => [w.entityId, w.deleted, w.recheckOn])).toEqual([
      ["changed", false, null],
      ["gone", true, null],
      ["new", false, null],
      ["rescheduled", false, "2024-07-01"],
    ]);
  });

  it("stores the digest read with every record it writes, and writes an unchanged record only for a new digest", () => {
    const d = (text: string) => Buffer.from(text);
    const state = new Map([
      ["same", row("same", { t: 1 }, { digest: d("1") })],
      ["new-digest", row("new-digest", { t: 1 }, { digest: d("1") })],
      ["first-digest", row("first-digest", { t: 1 })],
      ["no-digest", row("no-digest", { t: 1 }, { digest: d("1") })],
      ["changed-no-digest", row("changed-no-digest", { t: 1 }, { digest: d("1") })],
      ["rescheduled-no-digest", row("rescheduled-no-digest", { t: 1 }, { digest: d("1") })],
      ["gone", row("gone", { t: 1 }, { digest: d("1") })],
    ]);
    const plan = planChanges(
      observe([
        { id: "same", canonical: { t: 1 }, digest: d("1") },
        { id: "new-digest", canonical: { t: 1 }, digest: d("2") },
        { id: "first-digest", canonical: { t: 1 }, digest: d("2") },
        { id: "no-digest", canonical: { t: 1 } },
        { id: "changed-no-digest", canonical: { t: 2 } },
        { id: "rescheduled-no-digest", canonical: { t: 1 }, recheckOn: "2024-07-01" },
        { id: "gone", canonical: null },
      ]),
      state,
      false,
    );
    expect(plan.events).toEqual([
      { id: "changed-no-digest", change: "updated" },
      { id: "gone", change: "deleted" },
    ]);
    // A hash or recheck date written without a digest drops the old one: it no longer names
    // the record they came from.
    expect(plan.writes.map((w) => [w.entityId, w.digest?.toString() ?? null])).toEqual([
      ["new-digest", "2"],
      ["first-digest", "2"],
      ["changed-no-digest", null],
      ["rescheduled-no-digest", null],
      ["gone", null],
    ]);
  });

  it("records but does not announce new records in baseline mode; a record listed twice counts once", () => {
    const plan = planChanges(
      observe([
        { id: "a", canonical: { t: 1 } },
        { id: "a", canonical: { t: 2 } },
      ]),
      new Map(),
      true,
    );
    expect(plan.events).toEqual([]);
    expect(plan.writes).toHaveLength(1);
    expect(plan.writes[0]?.hash.equals(canonicalHash({ t: 2 }))).toBe(true);
  });
});

describe("source wall-clock arithmetic", () => {
  it("shifts naively across days and drops fractions downwards", () => {
    expect(shiftLocal("2024-03-01 00:01:00", -120_000)).toBe("2024-02-29 23:59:00");
    expect(shiftLocal("2024-06-10 10:00:00.750000", 0)).toBe("2024-06-10 10:00:00");
    expect(shiftLocal("2024-10-27T02:30:00", -60_000)).toBe("2024-10-27 02:29:00");
  });
});

describe("read-ahead", () => {
  /** Pages 1..n; records when each read starts, and whether the source was closed. */
  function pages(n: number, failAt?: number) {
    const log: string[] = [];
    async function* read() {
      try {
        for (let i = 1; i <= n; i++) {
          log.push(`read ${i}`);
          await Promise.resolve();
          if (i === failAt) throw new Error(`page ${i} failed`);
          yield i;
        }
      } finally {
        log.push("closed");
      }
    }
    return { log, pages: read() };
  }

  it("starts reading the next page before the current one is handed over, in order", async () => {
    const { log, pages: source } = pages(3);
    const got: number[] = [];
    for await (const page of readAhead(source)) {
      log.push(`apply ${page}`);
      got.push(page);
    }
    expect(got).toEqual([1, 2, 3]);
    // The read after page 3 finds the end (and the source closes) while page 3 is applied.
    expect(log).toEqual(["read 1", "read 2", "apply 1", "read 3", "apply 2", "closed", "apply 3"]);
  });

  it("closes the source when the caller stops early, and drops a failure of the read in flight", async () => {
    const { log, pages: source } = pages(3, 2);
    const stopped = (async () => {
      for await (const page of readAhead(source)) throw new Error(`apply ${page} failed`);
    })();
    await expect(stopped).rejects.toThrow("apply 1 failed");
    expect(log).toEqual(["read 1", "read 2", "closed"]);
  });

  it("closes a source whose read in flight succeeded when the caller stops", async () => {
    const { log, pages: source } = pages(3);
    for await (const page of readAhead(source)) if (page === 1) break;
    expect(log).toEqual(["read 1", "read 2", "closed"]);
  });

  it("passes a source failure on to the caller", async () => {
    const { pages: source } = pages(3, 2);
    const got: number[] = [];
    const run = (async () => {
      for await (const page of readAhead(source)) got.push(page);
    })();
    await expect(run).rejects.toThrow("page 2 failed");
    expect(got).toEqual([1]);
  });
});
