import { describe, expect, it } from "vitest";
import {
  addDays,
  brusselsDate,
  brusselsNoonUtc,
  brusselsOffsetMinutes,
  parseIsoDate,
  toBrusselsDateTime,
} from "../src/brussels-time.ts";

const viaIntl = new Intl.DateTimeFormat("sv-SE", {
  timeZone: "Europe/Brussels",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

describe("Brussels wall-clock conversion", () => {
  it("agrees with the IANA zone every 37 minutes across 2023-2026", () => {
    for (let t = Date.UTC(2023, 0, 1); t < Date.UTC(2027, 0, 1); t += 37 * 60_000) {
      expect(toBrusselsDateTime(t)).toBe(viaIntl.format(t));
    }
  });

  it("switches offsets at 01:00 UTC on the last Sundays of March and October", () => {
    expect(brusselsOffsetMinutes(Date.UTC(2024, 2, 31, 0, 59, 59))).toBe(60);
    expect(brusselsOffsetMinutes(Date.UTC(2024, 2, 31, 1, 0, 0))).toBe(120);
    expect(brusselsOffsetMinutes(Date.UTC(2024, 9, 27, 0, 59, 59))).toBe(120);
    expect(brusselsOffsetMinutes(Date.UTC(2024, 9, 27, 1, 0, 0))).toBe(60);
  });

  it("gives the Brussels calendar date, which differs from UTC just before midnight UTC", () => {
    expect(brusselsDate(Date.UTC(2025, 5, 14, 22, 30))).toBe("2025-06-15");
    expect(brusselsDate(brusselsNoonUtc("2024-03-31"))).toBe("2024-03-31");
  });
});

describe("calendar dates", () => {
  it("adds days across month and year ends", () => {
    expect(addDays("2024-12-31", 1)).toBe("2025-01-01");
    expect(addDays("2024-03-01", -1)).toBe("2024-02-29");
  });

  it("rejects dates that do not exist", () => {
    expect(() => parseIsoDate("2025-02-30")).toThrow(RangeError);
    expect(() => parseIsoDate("15-06-2025")).toThrow(RangeError);
  });
});
