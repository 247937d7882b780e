import { z } from "zod";
import { describe, expect, it } from "vitest";
import {
  calendarDateProblem,
  identifierText,
  isIdentifierText,
  isStorableText,
  storableText,
  utcMillis,
} from "./fields.ts";

describe("storable text", () => {
  it.each([
    ["NUL", "a\u0000b", false],
    ["a lone high surrogate", "a\ud800", false],
    ["a lone low surrogate", "\udc00a", false],
    ["reversed halves", "\ude00\ud83d", false],
    ["a surrogate pair", "😀", true],
    ["C0 and C1 controls", "\t\u0001\u0085\u009f", true],
    ["non-characters", "\ufdd0\uffff\u{10ffff}", true],
  ])("%s: %s", (_what, value, ok) => {
    expect(isStorableText(value)).toBe(ok);
    expect(storableText(z.string()).safeParse(value).success).toBe(ok);
  });

  it("states the rule in the document as an ECMA-262 pattern", () => {
    const schema = z.toJSONSchema(storableText(z.string())) as { pattern: string };
    expect(new RegExp(schema.pattern, "u").test("a\ud800")).toBe(false);
    expect(new RegExp(schema.pattern, "u").test("a😀")).toBe(true);
  });
});

describe("identifier text", () => {
  it("refuses every Unicode control character (C0, DEL, C1) and unpaired surrogates", () => {
    for (const c of ["\u0000", "\t", "\u001f", "\u007f", "\u0080", "\u0085", "\u009f", "\ud800"])
      expect(isIdentifierText(`id${c}`), JSON.stringify(c)).toBe(false);
    expect(isIdentifierText("ACC/2009/117 é 😀 \u00a0")).toBe(true);
    expect(identifierText(z.string()).safeParse("a\u0085").success).toBe(false);
  });
});

describe("calendar dates", () => {
  it.each([
    [0, 1, 1, "must lie in the years 0001 to 9999"],
    [0, 2, 29, "must lie in the years 0001 to 9999"],
    [2023, 2, 29, "is not a real calendar date"],
    [1900, 2, 29, "is not a real calendar date"],
    [100, 2, 29, "is not a real calendar date"],
    [2025, 4, 31, "is not a real calendar date"],
    [2025, 13, 1, "is not a real calendar date"],
  ])("%i-%i-%i: %s", (y, m, d, problem) => {
    expect(calendarDateProblem(y, m, d)).toBe(problem);
  });

  it.each([
    [1, 1, 1],
    [4, 2, 29],
    [99, 12, 31],
    [400, 2, 29],
    [2024, 2, 29],
    [9999, 12, 31],
  ])("%i-%i-%i exists", (y, m, d) => {
    expect(calendarDateProblem(y, m, d)).toBeUndefined();
  });

  it("counts the years 0 to 99 as themselves", () => {
    expect(new Date(utcMillis(99, 6, 29, 0, 13, 49)).toISOString()).toBe(
      "0099-06-29T00:13:49.000Z",
    );
  });
});
