import { describe, expect, it } from "vitest";
import {
  assertTimeZone,
  calendarToday,
  dateIn,
  instantOfLocal,
  isoInZone,
  localOfInstant,
  localToIso,
  offsetMinutes,
} from "../src/index.ts";

const BXL = "Europe/Brussels";

describe("zoned time (Europe/Brussels)", () => {
  it("gives winter +01:00 and summer +02:00", () => {
    expect(localToIso("2024-01-15 10:00:00", BXL)).toBe("2024-01-15T10:00:00+01:00");
    expect(localToIso("2024-07-15 10:00:00", BXL)).toBe("2024-07-15T10:00:00+02:00");
  });

  it("switches exactly at the spring-forward change (2024-03-31 02:00 → 03:00)", () => {
    expect(localToIso("2024-03-31 01:59:59", BXL)).toBe("2024-03-31T01:59:59+01:00");
    expect(localToIso("2024-03-31 03:00:00", BXL)).toBe("2024-03-31T03:00:00+02:00");
    // 02:30 does not exist: moved forward by the gap
    expect(localToIso("2024-03-31 02:30:00", BXL)).toBe("2024-03-31T03:30:00+02:00");
  });

  it("takes the earlier instant in the repeated autumn hour (2024-10-27 02:30)", () => {
    expect(localToIso("2024-10-27 02:30:00", BXL)).toBe("2024-10-27T02:30:00+02:00");
    expect(localToIso("2024-10-27 03:00:00", BXL)).toBe("2024-10-27T03:00:00+01:00");
    expect(instantOfLocal("2024-10-27 02:30:00", BXL)).toBe(Date.UTC(2024, 9, 27, 0, 30));
  });

  it("round-trips instants through local wall-clock strings", () => {
    for (const iso of [
      "2024-03-31T00:59:59Z",
      "2024-03-31T01:00:00Z",
      "2024-10-27T00:30:00Z",
      "2024-10-27T01:30:00Z",
      "2025-12-31T23:00:00Z",
    ]) {
      const ms = Date.parse(iso);
      const local = localOfInstant(ms, BXL);
      if (iso !== "2024-10-27T01:30:00Z") expect(instantOfLocal(local, BXL)).toBe(ms);
    }
  });

  it("computes today's date in the zone, not UTC's", () => {
    expect(dateIn(BXL, Date.parse("2024-06-30T22:30:00Z"))).toBe("2024-07-01");
    expect(dateIn("UTC", Date.parse("2024-06-30T22:30:00Z"))).toBe("2024-06-30");
    expect(dateIn(BXL, Date.parse("2024-12-31T22:59:59Z"))).toBe("2024-12-31");
  });

  it("gives today by the clock it is handed, turning over at the zone's midnight", () => {
    let now = Date.parse("2024-06-30T21:59:59.200Z");
    const today = calendarToday(BXL, () => now);
    expect(today()).toBe("2024-06-30");
    now = Date.parse("2024-06-30T21:59:59.900Z");
    expect(today()).toBe("2024-06-30");
    now = Date.parse("2024-06-30T22:00:00.000Z");
    expect(today()).toBe("2024-07-01");
    // A clock set back (tests pin "today") is followed too.
    now = Date.parse("2024-01-15T12:00:00Z");
    expect(today()).toBe("2024-01-15");
  });

  it("handles other zones and offsets with minutes", () => {
    expect(isoInZone(Date.parse("2024-01-01T00:00:00Z"), "Asia/Kolkata")).toBe(
      "2024-01-01T05:30:00+05:30",
    );
    expect(offsetMinutes(Date.parse("2024-01-01T00:00:00Z"), "America/New_York")).toBe(-300);
  });

  it("keeps null and zero dates null, and rejects unknown zones", () => {
    expect(localToIso(null, BXL)).toBeNull();
    expect(localToIso("0000-00-00 00:00:00", BXL)).toBeNull();
    expect(() => assertTimeZone("Mars/Olympus")).toThrow(RangeError);
  });
});
