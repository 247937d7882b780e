import { describe, expect, it } from "vitest";
import { parseModifiedOn } from "./crm-mirror-validation.ts";

const NOW = Date.parse("2025-06-15T10:00:00Z");

describe("parseModifiedOn", () => {
  it("reads an instant with any offset as microseconds since the epoch", () => {
    expect(parseModifiedOn("2025-06-01T10:00:00Z", NOW)).toBe(
      Date.parse("2025-06-01T10:00:00Z") * 1000,
    );
    expect(parseModifiedOn("2025-06-01T12:00:00+02:00", NOW)).toBe(
      parseModifiedOn("2025-06-01T10:00:00Z", NOW),
    );
    expect(parseModifiedOn("2025-06-01T09:30:00-00:30", NOW)).toBe(
      parseModifiedOn("2025-06-01T10:00:00Z", NOW),
    );
  });

  it("keeps microseconds and drops finer digits", () => {
    const base = Date.parse("2025-06-01T10:00:00Z") * 1000;
    expect(parseModifiedOn("2025-06-01T10:00:00.5Z", NOW)).toBe(base + 500_000);
    expect(parseModifiedOn("2025-06-01T10:00:00.123456789Z", NOW)).toBe(base + 123_456);
  });

  it.each([
    ["2025-06-01T10:00:00", "offset"],
    ["2025-06-01 10:00:00Z", "ISO 8601"],
    ["2025-06-01T10:00Z", "ISO 8601"],
    ["2025-02-30T10:00:00Z", "real calendar date"],
    ["1969-12-31T23:59:59Z", "1970"],
    ["2025-06-15T11:00:01Z", "future"],
  ])("refuses %s (%s)", (value, reason) => {
    const result = parseModifiedOn(value, NOW);
    expect(typeof result).toBe("string");
    expect(String(result)).toMatch(new RegExp(reason === "offset" ? "offset" : reason));
  });

  it("accepts a CRM clock up to an hour ahead", () => {
    expect(typeof parseModifiedOn("2025-06-15T11:00:00Z", NOW)).toBe("number");
  });
});
