import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, MAX_CURSOR_LENGTH } from "../src/index.ts";

const position = (v: unknown) => {
  const p = v as { at?: unknown };
  return typeof p === "object" && p !== null && typeof p.at === "number" ? { at: p.at } : undefined;
};

describe("opaque cursors", () => {
  it("give back what was encoded, as URL-safe text", () => {
    const text = encodeCursor({ at: 42, note: "ü/+=" });
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(text, position)).toEqual({ at: 42 });
  });

  it("refuse text that is not a cursor, or one the list's parser rejects", () => {
    for (const bad of [
      "",
      "a b",
      "abc+/",
      encodeCursor({ at: 1, pad: "x".repeat(MAX_CURSOR_LENGTH) }),
      Buffer.from("{").toString("base64url"),
      encodeCursor({ at: "42" }),
      encodeCursor(null),
    ])
      expect(decodeCursor(bad, position), JSON.stringify(bad)).toBeUndefined();
  });
});
