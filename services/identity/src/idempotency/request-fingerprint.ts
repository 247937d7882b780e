import { createHash } from "node:crypto";

/** Printable ASCII, 1–255 characters (space included; header parsing already trims the ends). */
const KEY_SYNTAX = /^[\x20-\x7e]{1,255}$/;

export function isValidIdempotencyKey(key: string): boolean {
  return KEY_SYNTAX.test(key);
}

/** The key is the client's own text: only its SHA-256 is stored. */
export function hashKey(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

/** JSON with object keys sorted at every level, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * What makes two requests "the same" for an Idempotency-Key: method, path and the body's meaning
 * (key order and whitespace do not matter, any other difference does).
 */
export function requestFingerprint(method: string, path: string, body: unknown): Buffer {
  return createHash("sha256").update(`${method.toUpperCase()} ${path}\n${canonicalJson(body ?? null)}`, "utf8").digest();
}
