import { hash } from "node:crypto";

/** An object's keys in canonical order, each with its serialised `"key":` prefix. */
type Layout = { keys: string[]; prefixes: string[] };

// A mapper builds every record with the same few key sets: each is sorted and quoted once.
const layouts = new Map<string, Layout>();
/** Distinct key sets kept; clear rather than grow unbounded on free-form records. */
const MAX_LAYOUTS = 1_000;

function layoutOf(keys: string[]): Layout {
  const id = keys.join("\u0000");
  let layout = layouts.get(id);
  if (layout === undefined) {
    // The default sort orders strings by UTF-16 code units, as `<` does.
    const sorted = [...keys].sort();
    layout = { keys: sorted, prefixes: sorted.map((k) => `${JSON.stringify(k)}:`) };
    if (layouts.size >= MAX_LAYOUTS) layouts.clear();
    layouts.set(id, layout);
  }
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
