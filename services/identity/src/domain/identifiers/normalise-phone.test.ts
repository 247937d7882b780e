import { describe, expect, it } from "vitest";
import { normalisePhone } from "./normalise-phone.ts";

describe("normalisePhone", () => {
  it.each([
    ["+32 470 12 34 56", "+32470123456"],
    ["0470 12 34 56", "+32470123456"],
    ["0470/12.34.56", "+32470123456"],
    ["0470-12-34-56", "+32470123456"],
    ["0032 470 12 34 56", "+32470123456"],
    ["+32 (0)470 12 34 56", "+32470123456"],
    ["+320470123456", "+32470123456"],
    ["(02) 512 34 56", "+3225123456"],
    ["\uff0b\uff13\uff12\uff14\uff17\uff10\uff11\uff12\uff13\uff14\uff15\uff16", "+32470123456"],
    ["+31 6 12345678", "+31612345678"],
    ["+33 6 12 34 56 78", "+33612345678"],
    ["+352 621 123 456", "+352621123456"],
  ])("writes %s as %s", (raw, e164) => {
    expect(normalisePhone(raw)).toBe(e164);
  });

  it.each([
    ["no number", "n/a"],
    ["too short", "12"],
    ["a Belgian number with a digit too many", "0470 12 34 567"],
    ["a Belgian number with a digit too few", "047 12 34 5"],
    ["no country and no trunk prefix", "470 12 34 56"],
    ["an extension", "+32 2 512 34 56 ext 12"],
    ["a plus inside", "0470+123456"],
    ["more than 15 digits", "+1234567890123456"],
    ["a Dutch number of the wrong length", "+31 6 1234567"],
  ])("refuses %s", (_what, raw) => {
    expect(normalisePhone(raw)).toBeNull();
  });
});
