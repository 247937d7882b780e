import { describe, expect, it } from "vitest";
import { canonicalHash, canonicalJson } from "../src/index.ts";
import { shiftLocal } from "../src/change-detection/local-time.ts";
import { observe, planChanges } from "../src/change-detection/plan.ts";
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
});

describe("change plan", () => {
  const row = (id: string, canonical: object, extra: Partial<StateRow> = {}): StateRow => ({
    entityId: id,
    hash: canonicalHash(canonical),
    recheckOn: null,
    deleted: false,
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
