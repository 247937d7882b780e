import { describe, expect, it } from "vitest";
import {
  BodyTooDeepError,
  canonicalJson,
  isValidIdempotencyKey,
  MAX_BODY_DEPTH,
  requestFingerprint,
} from "./request-fingerprint.ts";

describe("request fingerprint", () => {
  it("ignores key order at every level, nothing else", () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
    const one = requestFingerprint("POST", "/v1/applications", { a: 1, b: { c: true } });
    expect(
      requestFingerprint("post", "/v1/applications", { b: { c: true }, a: 1 }).equals(one),
    ).toBe(true);
    expect(
      requestFingerprint("POST", "/v1/applications", { a: 1, b: { c: false } }).equals(one),
    ).toBe(false);
    expect(requestFingerprint("POST", "/v1/other", { a: 1, b: { c: true } }).equals(one)).toBe(
      false,
    );
    expect(
      requestFingerprint("POST", "/v1/applications", [1, 2]).equals(
        requestFingerprint("POST", "/v1/applications", [2, 1]),
      ),
    ).toBe(false);
  });

  it("refuses bodies nested deeper than MAX_BODY_DEPTH with BodyTooDeepError, not a stack overflow", () => {
    const nested = (depth: number) =>
      JSON.parse(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`) as unknown;
    expect(() => canonicalJson(nested(MAX_BODY_DEPTH))).not.toThrow();
    expect(() => requestFingerprint("POST", "/v1/applications", nested(50_000))).toThrow(
      BodyTooDeepError,
    );
    expect(() => canonicalJson(JSON.parse(`${"[".repeat(5_000)}${"]".repeat(5_000)}`))).toThrow(
      BodyTooDeepError,
    );
  });

  it("accepts 1 to 255 printable ASCII characters as a key", () => {
    expect(isValidIdempotencyKey("a")).toBe(true);
    expect(isValidIdempotencyKey(" ~!x")).toBe(true);
    expect(isValidIdempotencyKey("k".repeat(255))).toBe(true);
    for (const bad of ["", "k".repeat(256), "tab\there", "caf\u00e9", "line\n"])
      expect(isValidIdempotencyKey(bad), JSON.stringify(bad)).toBe(false);
  });
});
