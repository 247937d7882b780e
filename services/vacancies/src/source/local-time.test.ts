import { describe, expect, it } from "vitest";
import { localToIso } from "@svc/time";
import { zonedIso } from "./local-time.ts";

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * Every 7th minute (with varying seconds) of the days around a zone's offset changes, plus a spread
 * of ordinary days.
 */
function samples(days: string[]): string[] {
  const out: string[] = [];
  for (const day of days)
    for (let m = 0; m < 24 * 60; m += 7)
      out.push(`${day} ${pad(Math.floor(m / 60))}:${pad(m % 60)}:${pad((m * 13) % 60)}`);
  return out;
}

describe("zonedIso", () => {
  it.each([
    [
      "Europe/Brussels",
      [
        "2024-03-30",
        "2024-03-31",
        "2024-04-01",
        "2024-10-26",
        "2024-10-27",
        "2024-10-28",
        "1996-10-27",
        "2025-06-15",
        "2001-02-12",
      ],
    ],
    // A half-hour change at 02:00 (Lord Howe) and a change at midnight (Santiago): not whole hours
    // of the Brussels kind.
    ["Australia/Lord_Howe", ["2024-04-07", "2024-10-06", "2024-07-01"]],
    ["America/Santiago", ["2024-04-06", "2024-04-07", "2024-09-07", "2024-09-08"]],
  ])("gives exactly what localToIso gives in %s, across its offset changes", (zone, days) => {
    const fast = zonedIso(zone);
    for (const local of samples(days)) {
      expect(fast(local), local).toBe(localToIso(local, zone));
      expect(fast(local), `${local} (cached)`).toBe(localToIso(local, zone));
    }
  });

  it("treats NULL, empty and zero dates as no time", () => {
    const fast = zonedIso("Europe/Brussels");
    expect([fast(null), fast(""), fast("0000-00-00 00:00:00")]).toEqual([null, null, null]);
  });
});
