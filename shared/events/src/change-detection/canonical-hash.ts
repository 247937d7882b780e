import { createHash } from "node:crypto";

/**
 * JSON with object keys sorted at every level, so two equal canonical forms serialise alike
 * whatever order a mapper built them in. Follows JSON.stringify otherwise: toJSON is honoured,
 * undefined properties are left out, undefined array items become null.
 */
export function canonicalJson(value: unknown): string {
  if (
    value !== null &&
    typeof value === "object" &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    return canonicalJson((value as { toJSON: () => unknown }).toJSON());
  }
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(
      ([, v]) => v !== undefined && typeof v !== "function",
    );
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** 32-byte SHA-256 of the canonical JSON: what the state table keeps instead of the record. */
export function canonicalHash(value: object): Buffer {
  return createHash("sha256").update(canonicalJson(value)).digest();
}
