import { V1MicroTime } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { formatMicroTime, microTimeOf, parseMicroTime } from "../src/micro-time.ts";

describe("MicroTime", () => {
  it("round-trips a six-digit MicroTime string exactly, microseconds included", () => {
    const text = "2026-11-22T03:58:00.123456Z";
    expect(formatMicroTime(parseMicroTime(text))).toBe(text);
  });

  it("always writes exactly six fractional digits in UTC", () => {
    expect(microTimeOf(new Date("2026-11-22T03:58:00Z"))).toBe("2026-11-22T03:58:00.000000Z");
    expect(microTimeOf(Date.UTC(2026, 10, 22, 3, 58, 0, 7))).toBe("2026-11-22T03:58:00.007000Z");
    expect(formatMicroTime(parseMicroTime("2026-11-22T03:58:00.000001Z"))).toBe(
      "2026-11-22T03:58:00.000001Z",
    );
  });

  it("parses Date objects, including the client library's V1MicroTime", () => {
    expect(parseMicroTime(new Date("2026-11-22T03:58:00.123Z"))).toBe(
      Date.UTC(2026, 10, 22, 3, 58, 0, 123) * 1000,
    );
    const libraryValue = new V1MicroTime("2026-11-22T03:58:00.123Z");
    expect(formatMicroTime(parseMicroTime(libraryValue))).toBe("2026-11-22T03:58:00.123000Z");
  });

  it("parses other RFC 3339 forms: fewer or more digits, offsets, no fraction", () => {
    expect(formatMicroTime(parseMicroTime("2026-11-22T03:58:00.5Z"))).toBe(
      "2026-11-22T03:58:00.500000Z",
    );
    expect(formatMicroTime(parseMicroTime("2026-11-22T03:58:00.123456789Z"))).toBe(
      "2026-11-22T03:58:00.123456Z",
    );
    expect(formatMicroTime(parseMicroTime("2026-11-22T04:58:00.000010+01:00"))).toBe(
      "2026-11-22T03:58:00.000010Z",
    );
    expect(formatMicroTime(parseMicroTime("2026-11-22T03:58:00Z"))).toBe(
      "2026-11-22T03:58:00.000000Z",
    );
  });

  it("rejects what is not a time", () => {
    expect(() => parseMicroTime("yesterday")).toThrow(RangeError);
    expect(() => parseMicroTime("2026-11-22 03:58:00Z")).toThrow(RangeError);
    expect(() => parseMicroTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
