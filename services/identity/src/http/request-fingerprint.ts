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

/**
 * Deeper than any request body this service takes: the fingerprint is computed before the body is
 * validated, and a recursion thousands of levels deep would overflow the stack (a 500).
 */
export const MAX_BODY_DEPTH = 64;

export class BodyTooDeepError extends Error {
  constructor() {
    super(`the body nests deeper than ${MAX_BODY_DEPTH} levels`);
    this.name = "BodyTooDeepError";
  }
}

/**
 * JSON with object keys sorted at every level, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same
 * request.
 */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_BODY_DEPTH) throw new BodyTooDeepError();
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v, depth + 1)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map(
        (k) =>
          `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k], depth + 1)}`,
      );
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * What makes two requests "the same" for an Idempotency-Key: method, path and the body's meaning
 * (key order and whitespace do not matter, any other difference does).
 */
export function requestFingerprint(method: string, path: string, body: unknown): Buffer {
  return createHash("sha256")
    .update(`${method.toUpperCase()} ${path}\n${canonicalJson(body ?? null)}`, "utf8")
    .digest();
}
