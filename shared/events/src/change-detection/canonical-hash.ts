import { hash } from "node:crypto";

/** One key set as Object.keys gave it, its keys in canonical order with their `"key":` prefixes. */
type Layout = { given: string[]; keys: string[]; prefixes: string[] };

// A mapper builds every record with the same few key sets: each is sorted and quoted once, and
// found again by its first key and a comparison of the (interned) key strings, without building a
// lookup string per object.
const layouts = new Map<string, Layout[]>();
let layoutCount = 0;
/** Distinct key sets kept; cleared rather than grown unbounded on free-form records. */
const MAX_LAYOUTS = 1_000;

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function layoutOf(given: string[]): Layout {
  const first = given[0] ?? "";
  const candidates = layouts.get(first);
  if (candidates !== undefined)
    for (const layout of candidates) if (sameKeys(layout.given, given)) return layout;
  // The default sort orders strings by UTF-16 code units, as `<` does.
  const keys = [...given].sort();
  const layout = { given, keys, prefixes: keys.map((k) => `${JSON.stringify(k)}:`) };
  if (layoutCount >= MAX_LAYOUTS) {
    layouts.clear();
    layoutCount = 0;
  }
  const list = layouts.get(first);
  if (list === undefined) layouts.set(first, [layout]);
  else list.push(layout);
  layoutCount++;
  return layout;
}

/**
 * JSON with object keys sorted at every level, so two equal canonical forms serialise alike
 * whatever order a mapper built them in. Follows JSON.stringify otherwise: toJSON is honoured,
 * undefined properties are left out, undefined array items become null.
 *
 * A sweep serialises every live record, so this builds one string in place. Its output must stay
 * byte for byte the same: the state table keeps hashes of it, and a different byte would report
 * every record updated.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  if (typeof (value as { toJSON?: unknown }).toJSON === "function")
    return canonicalJson((value as { toJSON: () => unknown }).toJSON());
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (i > 0) out += ",";
      out += item === undefined ? "null" : canonicalJson(item);
    }
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  // Object.keys: the own enumerable string keys, as Object.entries and JSON.stringify take.
  const { keys, prefixes } = layoutOf(Object.keys(object));
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const v = object[keys[i] as string];
    if (v === undefined || typeof v === "function") continue;
    out += out.length === 1 ? prefixes[i] : `,${prefixes[i]}`;
    out += canonicalJson(v);
  }
  return `${out}}`;
}

/** 32-byte SHA-256 of the canonical JSON: what the state table keeps instead of the record. */
export function canonicalHash(value: object): Buffer {
  return hash("sha256", canonicalJson(value), "buffer");
}
